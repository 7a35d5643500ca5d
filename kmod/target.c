// SPDX-License-Identifier: GPL-2.0
/*
 * The target table: every shelf.slot that answered Query Config, and per
 * target every path (local interface x target MAC) with what the target
 * announced on it. Updated from the receive path (softirq); read by
 * netlink and sysfs (locking below).
 *
 * Anyone on the segment can announce targets. The table holds at most
 * AOE_MAX_TARGETS; a new target then takes the place of the least useful
 * one (evict_victim()): first one without a disk, then one whose disk is
 * not open and that is not up, then one whose disk is not open, each time
 * the one heard from longest ago. A target with an open disk, or whose disk
 * is being created, is never evicted. An evicted target is unlinked under
 * the lock and freed at once or by aoe_reap_work (see below).
 *
 * IDENTIFY (target_work(), process context, waits for the answer) runs at
 * once for a target that has a disk (revalidate, back after an outage: its
 * I/O waits), and for at most AOE_IDENTIFY_MAX other targets at once, so
 * announcements never pin more kernel workers than that; the others wait
 * for a slot, targets never tried before first and the newest of them
 * first, so a real target announced after a flood of made-up ones that
 * never answer waits one IDENTIFY timeout at most (made-up announcements
 * that keep coming after it can delay it longer). A target that fails does
 * not try again while others wait. An evicted target without a disk or
 * IDENTIFY work is freed at once; others by aoe_reap_work.
 *
 * Write cache: the queue declares a volatile write cache (and so gets flush
 * requests, which flush.c sends as FLUSH CACHE (EXT)) when the flush mode
 * (the target's, else aoe_flush) is "always", or "auto" and IDENTIFY says
 * the cache is on; and FUA when it declares the cache and the target has
 * WRITE DMA FUA EXT. Never once the target aborted a FLUSH. cache_work
 * applies it to the queue (the block layer's update sleeps); it is queued
 * after IDENTIFY, on a mode change and on an aborted FLUSH.
 *
 * Identity (aoe(4) "Target identity"): a target is its shelf.slot and the
 * device its first answered IDENTIFY describes (serial, model, capacity,
 * LBA48; aoe_ident.h). A path carries I/O (state UP) only after an IDENTIFY
 * sent over exactly that path (local interface x target MAC) matched. Every
 * new path is a CANDIDATE, and so again is a path whose device may have
 * changed: one that was down and answers again (link back, timeouts) and
 * one that announces itself unsolicited (tag 0: a target (re)started).
 * While the target is not up, its IDENTIFY work checks candidates, a path
 * verified before first (the first answer of a new target defines its
 * identity); once it is up, verify_work checks the others, all at once,
 * each bounded by AOE_CHECK_WAIT_MS. A mismatch refuses the path
 * (path_refuse(): counted, logged, an event, remembered in t->conflicts so
 * its announcements are dropped for AOE_CONFLICT_TTL_NS); a candidate that
 * does not answer is dropped (a path verified before goes DOWN and is
 * probed). New candidates of an identified target are bounded
 * (AOE_CAND_MAX) and rate-limited (t->cand): made-up MACs cost a bounded
 * number of IDENTIFYs. Before its identity is known a target has no disk
 * and no I/O; its paths (at most AOE_MAX_PATHS) wait as candidates for the
 * IDENTIFY work, which tries them in turn, as without identity checks.
 *
 * Locking (target.h): aoe_tgt_lock (BH-safe, "the table lock") protects
 * the table, the IDENTIFY wait lists and slot count, the evicted list and
 * each target's IDENTIFY scheduling and openers; a target's own lock
 * (t->lock, "the target's lock"; "the lock" below) everything else in it,
 * its paths and ports. "Both locks": the table lock, then the target's.
 * The list and the hash of targets are RCU lists (written under the table
 * lock): a target is unlinked from both (target_unlink(), both locks),
 * put on a teardown list by its gone_node and freed with kfree_rcu()
 * (target_free()), also from the receive path (evict_one()), so a lookup
 * under rcu_read_lock() never finds freed memory. Paths and ports are
 * freed at once: whoever found the target under RCU touches them only
 * under its lock after checking t->removed.
 */
#include <linux/atomic.h>
#include <linux/etherdevice.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "aoe_trace.h"
#include "ata.h"
#include "blkdev.h"
#include "compat.h"
#include "discover.h"
#include "netlink.h"
#include "params.h"
#include "steer.h"
#include "target.h"

#define AOE_CHECK_WAIT_MS	4000	/* a candidate's IDENTIFY, all resends */
#define AOE_IDENTIFY_WAIT_MS	5000	/* the target's IDENTIFY */
#define AOE_ANNOUNCE_RECHECK_MS	30000	/* an up path re-checked on announcement */
#define AOE_RAISE_MS		3000	/* after a revalidate: maxsect, bufcnt may rise */
#define AOE_RESIZE_TRIES	3	/* a candidate's waits for a resize's confirmation */

static const char *const aoe_flush_names[] = {
	[AOE_FLUSH_MODE_DEFAULT] = "default",
	[AOE_FLUSH_MODE_AUTO] = "auto",
	[AOE_FLUSH_MODE_ALWAYS] = "always",
	[AOE_FLUSH_MODE_NEVER] = "never",
};

DEFINE_SPINLOCK(aoe_tgt_lock);
LIST_HEAD(aoe_tgt_list);
atomic_t aoe_tgt_generation = ATOMIC_INIT(1);
unsigned int aoe_tgt_count;

/*
 * Targets by shelf.slot: 1024 buckets for at most AOE_MAX_TARGETS, keyed by
 * a hash with a secret seed: anyone can announce targets, and could
 * otherwise fill one bucket with made-up ones that every answer to a real
 * target in it would walk.
 */
#define AOE_TGT_HASH_BITS	10
static DEFINE_HASHTABLE(aoe_tgt_hash, AOE_TGT_HASH_BITS);
static u32 aoe_tgt_seed;

static u32 tgt_key(u16 shelf, u8 slot)
{
	return jhash_1word((u32)shelf << 8 | slot, aoe_tgt_seed);
}

static atomic64_t aoe_drops_total[__AOE_DROP_MAX];
static atomic64_t aoe_evictions;

/* IDENTIFY scheduling, under aoe_tgt_lock. */
static LIST_HEAD(aoe_id_new);		/* never identified: newest first */
static LIST_HEAD(aoe_id_retry);		/* again (revalidate, back up): FIFO */
static unsigned int aoe_id_running;	/* slots taken */
static unsigned int aoe_id_waiting;	/* targets on the two lists */

/* Evicted targets, unlinked, for aoe_reap_work to free. */
static LIST_HEAD(aoe_tgt_evicted);
static void targets_destroy(struct list_head *gone);

static void reap_fn(struct work_struct *work)
{
	LIST_HEAD(gone);

	spin_lock_bh(&aoe_tgt_lock);
	list_splice_init(&aoe_tgt_evicted, &gone);	/* by gone_node */
	spin_unlock_bh(&aoe_tgt_lock);
	targets_destroy(&gone);
}

static DECLARE_WORK(aoe_reap_work, reap_fn);

u64 aoe_target_now_ns(void)
{
	return ktime_get_ns();
}

u64 aoe_target_evictions(void)
{
	return atomic64_read(&aoe_evictions);
}

u64 aoe_drops_read(enum aoe_drop_reason reason)
{
	return atomic64_read(&aoe_drops_total[reason]);
}

struct aoe_target *aoe_target_find(u16 shelf, u8 slot)
{
	u32 key = tgt_key(shelf, slot);
	struct aoe_target *t;

	hash_for_each_possible_rcu(aoe_tgt_hash, t, hnode, key,
				   lockdep_is_held(&aoe_tgt_lock))
		if (t->shelf == shelf && t->slot == slot)
			return t;
	return NULL;
}

struct aoe_path *aoe_path_find(struct aoe_target *t, const struct net *net,
			       int ifindex, const u8 *mac)
{
	struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (p->ifindex == ifindex && net_eq(read_pnet(&p->net), net) &&
		    ether_addr_equal(p->mac, mac))
			return p;
	return NULL;
}

/*
 * The smallest payload over usable paths (0: none is usable), the one number
 * sysfs "payload" shows as the in-tree driver's does. Frames are not limited
 * by it: each carries its own path's payload (p->payload, per path in netlink).
 */
u32 aoe_target_payload(const struct aoe_target *t)
{
	const struct aoe_path *p;
	u32 min = 0;

	list_for_each_entry(p, &t->paths, node) {
		if (p->state != AOE_PATH_STATE_UP || !p->payload)
			continue;
		if (!min || p->payload < min)
			min = p->payload;
	}
	return min;
}

void aoe_drop_locked(enum aoe_drop_reason reason, struct aoe_target *t,
		     struct net_device *dev, const u8 *src)
{
	struct aoe_path *p;

	aoe_t_assert(t);
	if (reason <= AOE_DROP_PAD || reason > AOE_DROP_MAX)
		return;
	t->cnt.drops[reason]++;
	p = aoe_path_find(t, dev_net(dev), dev->ifindex, src);
	if (p)
		p->cnt.drops[reason]++;
}

void aoe_drop(enum aoe_drop_reason reason, struct net_device *dev,
	      const struct aoe_frame *f)
{
	struct aoe_target *t;

	if (reason <= AOE_DROP_PAD || reason > AOE_DROP_MAX)
		return;
	atomic64_inc(&aoe_drops_total[reason]);
	/* attribute only frames whose addressing already passed validation */
	if (!f || !dev)
		return;
	switch (reason) {
	case AOE_DROP_SHORT:
	case AOE_DROP_VERSION:
	case AOE_DROP_NOT_RESPONSE:
	case AOE_DROP_RESERVED_FLAGS:
	case AOE_DROP_BAD_ADDRESS:
	case AOE_DROP_IFACE:
	case AOE_DROP_NO_TARGET:
		return;
	default:
		break;
	}
	rcu_read_lock();
	t = aoe_target_find(f->shelf, f->slot);
	if (t) {
		spin_lock_bh(&t->lock);
		if (!t->removed)
			aoe_drop_locked(reason, t, dev, f->src);
		spin_unlock_bh(&t->lock);
	}
	rcu_read_unlock();
}

/* The port of target MAC @mac, taken for one more path (NULL: no memory). */
static struct aoe_port *port_get(struct aoe_target *t, const u8 *mac)
{
	struct aoe_port *port;

	list_for_each_entry(port, &t->ports, node)
		if (ether_addr_equal(port->mac, mac))
			goto found;
	port = kzalloc(sizeof(*port), GFP_ATOMIC);
	if (!port)
		return NULL;
	ether_addr_copy(port->mac, mac);
	list_add_tail(&port->node, &t->ports);
found:
	port->npaths++;
	return port;
}

/* A path of @port is freed; the port goes with its last path. */
static void port_put(struct aoe_port *port)
{
	if (--port->npaths)
		return;
	WARN_ON_ONCE(port->outstanding);
	list_del(&port->node);
	kfree(port);
}

const char *aoe_target_name(const struct aoe_target *t, char *buf, size_t n)
{
	snprintf(buf, n, "e%u.%u", t->shelf, t->slot);
	return buf;
}

/* Every change of t->state goes through here: the tracepoint sees it. */
static void target_state(struct aoe_target *t, u32 state)
{
	aoe_t_assert(t);
	if (t->state != state)
		trace_aoe_target_state(t->shelf, t->slot, t->state, state);
	WRITE_ONCE(t->state, state);	/* read by evict_victim() */
}

void aoe_path_set_state(struct aoe_target *t, struct aoe_path *p, u32 state)
{
	aoe_t_assert(t);
	if (p->state != state)
		trace_aoe_path_state(t->shelf, t->slot, p->ifindex, p->ifname,
				     p->mac, p->state, state);
	p->state = state;
}

void aoe_target_set_state(struct aoe_target *t, u32 state)
{
	aoe_t_assert(t);
	if (t->state == state)
		return;
	target_state(t, state);
	if (state == AOE_TARGET_STATE_UP)
		aoe_netlink_notify(AOE_CMD_TARGET_UP, t, NULL);
	else if (state == AOE_TARGET_STATE_DOWN)
		aoe_netlink_notify(AOE_CMD_TARGET_DOWN, t, NULL);
}

/* Give waiting targets the free IDENTIFY slots. Caller holds aoe_tgt_lock. */
static void identify_dispatch(void)
{
	struct aoe_target *t;

	lockdep_assert_held(&aoe_tgt_lock);
	while (aoe_id_running < AOE_IDENTIFY_MAX) {
		t = list_first_entry_or_null(&aoe_id_new, struct aoe_target,
					     id_node);
		if (!t)
			t = list_first_entry_or_null(&aoe_id_retry,
						     struct aoe_target, id_node);
		if (!t)
			break;
		list_del_init(&t->id_node);
		aoe_id_waiting--;
		t->id_running = true;
		aoe_id_running++;
		queue_work(system_long_wq, &t->work);
	}
}

/* IDENTIFY @t (again) when a slot is free. Caller holds aoe_tgt_lock. */
static void target_identify(struct aoe_target *t)
{
	lockdep_assert_held(&aoe_tgt_lock);
	if (t->removed)
		return;
	if (t->id_running) {
		t->id_again = true;
		return;
	}
	if (!list_empty(&t->id_node))
		return;
	if (t->bd) {
		/*
		 * A disk exists (a revalidate, or back after an outage): its
		 * I/O waits for this IDENTIFY, so it never waits behind
		 * announcements. Disks only come from answered IDENTIFYs, and
		 * the table bounds them: no flood takes this path.
		 */
		t->id_running = true;
		aoe_id_running++;
		queue_work(system_long_wq, &t->work);
		return;
	}
	if (t->id_tried)
		list_add_tail(&t->id_node, &aoe_id_retry);
	else
		list_add(&t->id_node, &aoe_id_new);
	aoe_id_waiting++;
	identify_dispatch();
}

/* @t's work ended or was cancelled: free its slot. Takes aoe_tgt_lock. */
static void identify_done(struct aoe_target *t)
{
	spin_lock_bh(&aoe_tgt_lock);
	t->id_running = false;
	t->id_tried = true;
	aoe_id_running--;
	if (t->id_again && !t->removed) {
		t->id_again = false;
		target_identify(t);
	}
	identify_dispatch();
	spin_unlock_bh(&aoe_tgt_lock);
}

/* Off the IDENTIFY wait lists: @t is being unlinked. Caller: both locks. */
static void identify_forget(struct aoe_target *t)
{
	if (!list_empty(&t->id_node)) {
		list_del_init(&t->id_node);
		aoe_id_waiting--;
	}
	t->id_again = false;
}

static void path_free(struct aoe_target *t, struct aoe_path *p);

/* Candidate @p is verified: it carries I/O from now on. Caller: the lock. */
static void path_promote(struct aoe_target *t, struct aoe_path *p)
{
	u32 old_payload = aoe_target_payload(t);

	aoe_path_set_state(t, p, AOE_PATH_STATE_UP);
	p->verified = true;
	/* config_rx() updates the port's buffer count only for UP paths */
	p->port->bufcnt = p->bufcnt;
	aoe_netlink_notify(AOE_CMD_PATH_UP, t, p);
	if (old_payload != aoe_target_payload(t))
		aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
}

/*
 * @p stops carrying I/O until it is verified (again): its frames go to other
 * paths. Caller: RCU + the lock; @q sent before it is dropped.
 */
static void path_to_candidate(struct aoe_target *t, struct aoe_path *p,
			      struct sk_buff_head *q, struct list_head *done)
{
	bool was_up = p->state == AOE_PATH_STATE_UP;

	if (was_up) {
		aoe_ata_path_gone(t, p, q, done, false);
		aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
	}
	aoe_path_set_state(t, p, AOE_PATH_STATE_CANDIDATE);
}

/* @p waits for @t's next IDENTIFY to confirm its capacity. Caller: the lock. */
static bool resize_waiting(const struct aoe_target *t,
			   const struct aoe_path *p)
{
	return p->resize_wait && p->resize_seq == t->id_seq;
}

/* Queue the check of @t's candidates, if it is up. Caller: the lock. */
static void verify_kick(struct aoe_target *t)
{
	aoe_t_assert(t);
	if (t->bd && !t->removed && t->identified &&
	    t->state == AOE_TARGET_STATE_UP)
		queue_work(system_long_wq, &t->verify_work);
}

/*
 * Up path @p announced itself: out for a check (the caller kicks it), and the
 * next announcement's check waits AOE_ANNOUNCE_RECHECK_MS. Caller: RCU + the
 * lock.
 */
static void path_recheck(struct aoe_target *t, struct aoe_path *p,
			 struct list_head *done)
{
	struct sk_buff_head q;

	p->recheck_at = (jiffies +
			 msecs_to_jiffies(AOE_ANNOUNCE_RECHECK_MS)) | 1;
	p->recheck_pending = false;
	__skb_queue_head_init(&q);
	path_to_candidate(t, p, &q, done);
	aoe_ata_xmit_locked(t, &q);
}

/*
 * The checks of announcements heard inside their path's window, once it has
 * ended. From aoe_probe_work (discover.c, every AOE_PROBE_INTERVAL_MS,
 * cancelled before the targets are freed at unload).
 */
void aoe_target_recheck_due(void)
{
	struct aoe_target *t;
	struct aoe_path *p;
	bool kick;
	LIST_HEAD(done);

	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		spin_lock(&t->lock);
		kick = false;
		/* ended: 0, before jiffies wrap and time_before() says "open" */
		if (t->raise_until && time_after_eq(jiffies, t->raise_until))
			t->raise_until = 0;
		list_for_each_entry(p, &t->paths, node) {
			if (p->recheck_at && !p->recheck_pending &&
			    time_after_eq(jiffies, p->recheck_at))
				p->recheck_at = 0;
			if (!p->recheck_pending)
				continue;
			if (p->state != AOE_PATH_STATE_UP) {
				p->recheck_pending = false;	/* checked anyway */
				continue;
			}
			if (!time_after_eq(jiffies, p->recheck_at))
				continue;
			path_recheck(t, p, &done);
			kick = true;
		}
		if (kick)
			verify_kick(t);
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
}

/*
 * @p answered IDENTIFY as another device (@id, @v: what differs): refused.
 * Its MAC is proven to answer as another device, whatever state @p was in
 * (verified and up, or a candidate): every other path to that MAC stops
 * carrying I/O too (before any frame moves, so no frame goes to a sibling
 * of the refused device) and is checked again.
 * Caller: RCU + the lock; @q sent before it is dropped.
 */
static void path_refuse(struct aoe_target *t, struct aoe_path *p,
			const struct aoe_identity *id,
			enum aoe_ident_verdict v, struct sk_buff_head *q,
			struct list_head *done)
{
	struct aoe_conflict *e;
	struct aoe_path *o;
	bool siblings = false;

	/* marked first: no sibling is picked for the frames that move */
	list_for_each_entry(o, &t->paths, node)
		if (o != p && o->state == AOE_PATH_STATE_UP &&
		    ether_addr_equal(o->mac, p->mac)) {
			aoe_path_set_state(t, o, AOE_PATH_STATE_CANDIDATE);
			o->moving = true;
			siblings = true;
		}
	aoe_path_set_state(t, p, AOE_PATH_STATE_CANDIDATE);
	if (siblings)
		list_for_each_entry(o, &t->paths, node)
			if (o->moving) {
				/* was up: its frames move, as path_to_candidate() */
				o->moving = false;
				aoe_ata_path_gone(t, o, q, done, false);
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, o);
				aoe_path_set_state(t, o,
						   AOE_PATH_STATE_CANDIDATE);
			}
	aoe_ata_path_refused(t, p, done);
	e = aoe_conflict_add(&t->conflicts, p->ifindex, p->mac, id, v,
			     aoe_target_now_ns());
	t->cnt.address_conflicts++;
	net_warn_ratelimited("e%u.%u: address conflict: %pM on %s answers IDENTIFY as serial \"%s\" model \"%s\" %llu sectors%s (%s differs); e%u.%u is serial \"%s\" model \"%s\" %llu sectors%s, identified via %pM on %s: %pM on %s is not used (refused for %llu s)\n",
			     t->shelf, t->slot, p->mac, p->ifname, id->serial,
			     id->model, id->sectors,
			     id->lba48 ? "" : " 28-bit",
			     aoe_ident_verdict_name(v), t->shelf, t->slot,
			     t->id.serial, t->id.model, t->id.sectors,
			     t->id.lba48 ? "" : " 28-bit", t->id_mac,
			     t->id_ifname, p->mac, p->ifname,
			     AOE_CONFLICT_TTL_NS / NSEC_PER_SEC);
	path_free(t, p);
	aoe_netlink_conflict(t, e);
	if (siblings)
		verify_kick(t);
}

/*
 * Candidate @p's check failed (no answer, unusable answer): a path verified
 * before waits DOWN (probed, checked when it answers), a new one of an
 * identified target is dropped (announced again, it is checked again,
 * rate-limited). Caller: the lock.
 */
static void cand_failed(struct aoe_target *t, struct aoe_path *p,
			struct list_head *done)
{
	if (p->verified) {
		aoe_path_set_state(t, p, AOE_PATH_STATE_DOWN);
		return;
	}
	if (!t->identified) {
		/*
		 * No identity yet (no disk, no I/O): the path stays, as before
		 * identity checks, last in line for the next IDENTIFY try, and
		 * gives its slot to a new path when all are taken
		 * (cand_victim()).
		 */
		p->failed = true;
		list_move_tail(&p->node, &t->paths);
		aoe_tgt_changed();
		return;
	}
	aoe_ata_path_refused(t, p, done);
	path_free(t, p);
}

/* Is a verified path of @t other than @p up? Caller: the lock. */
static bool other_path_up(const struct aoe_target *t,
			  const struct aoe_path *p)
{
	const struct aoe_path *o;

	list_for_each_entry(o, &t->paths, node)
		if (o != p && o->verified && o->state == AOE_PATH_STATE_UP)
			return true;
	return false;
}

/*
 * The check of candidate @p ended with @ret and @id (aoe_ata_identify_wait()):
 * promote, refuse or drop it. Returns true when it is a path now. The same
 * serial, model and LBA48 with another capacity is the same device resized
 * (a target restarted on a bigger file) only when no other verified path is
 * up (and, for a path never verified, the target is not up), or when an
 * IDENTIFY over another path confirms the new capacity: the path is
 * promoted and the disk revalidated (the target's IDENTIFY work applies
 * the size; @revalidate false: the caller is that work). A path waits for
 * that confirmation AOE_RESIZE_TRIES times at most, then its check failed.
 * Else it is another device (a clone): an address conflict. Caller: RCU +
 * both locks (target_identify()); @q sent before they are dropped.
 */
static bool cand_checked(struct aoe_target *t, struct aoe_path *p, int ret,
			 const struct aoe_identity *id, bool revalidate,
			 struct sk_buff_head *q, struct list_head *done)
{
	enum aoe_ident_verdict v;
	bool unsure;

	if (ret) {
		cand_failed(t, p, done);
		return false;
	}
	v = aoe_ident_check(&t->id, id, true);
	/*
	 * A path never verified is no proof of a resize while the target is
	 * up: a clone heard while the real path is down, being checked or
	 * gone with its interface would take the disk. It waits for the
	 * target's IDENTIFY over another path; once the target went down (a
	 * target moved to a new MAC and grown), the one that answers is it.
	 */
	unsure = other_path_up(t, p) ||
		 (!p->verified && t->state == AOE_TARGET_STATE_UP);
	if (v == AOE_IDV_CAPACITY && unsure && revalidate) {
		/*
		 * Another verified path is up, to the disk as identified: a
		 * disk with the same serial and model and another size behind
		 * @p may be a clone, not this disk resized. Only an IDENTIFY
		 * over an up path can confirm the new size; @p waits for the
		 * target's next one and is refused if that one did not. (The
		 * target's own IDENTIFY work checks a candidate only when no
		 * up path can take it: refused at once then.)
		 */
		if (!p->resize_wait || p->resize_seq == t->id_seq) {
			/* not for ever: its checks keep a candidate slot */
			if (++p->resize_tries > AOE_RESIZE_TRIES) {
				p->resize_wait = false;
				p->resize_tries = 0;
				cand_failed(t, p, done);
				return false;
			}
			p->resize_wait = true;
			p->resize_seq = t->id_seq;
			target_identify(t);
			return false;
		}
	} else if (aoe_ident_same_device(v) &&
		   (v == AOE_IDV_MATCH || !unsure)) {
		p->resize_wait = false;
		p->resize_tries = 0;
		path_promote(t, p);
		if (v == AOE_IDV_CAPACITY && revalidate)
			target_identify(t);
		return true;
	}
	p->resize_wait = false;
	p->resize_tries = 0;
	path_refuse(t, p, id, v, q, done);
	return false;
}

/* The path of @t whose check is @h, or NULL (gone since). Caller: the lock. */
static struct aoe_path *path_of_check(struct aoe_target *t,
				      struct aoe_ident *h)
{
	struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (p->check == h)
			return p;
	return NULL;
}

/*
 * Check the candidates of @t, which is up: one IDENTIFY over each (all at
 * once), each answer compared with the identity. Rounds while candidates
 * come (each new one was admitted by the rate limit). Process context.
 */
static void verify_fn(struct work_struct *work)
{
	struct aoe_target *t = container_of(work, struct aoe_target,
					    verify_work);
	struct aoe_ident *h[AOE_MAX_PATHS];
	struct aoe_identity id;
	unsigned long deadline;
	struct sk_buff_head q;
	struct aoe_path *p;
	int i, n, ret, round;
	LIST_HEAD(done);

	for (round = 0; round < 4; round++) {
		n = 0;
		rcu_read_lock();
		aoe_tl_lock(t);
		if (!t->removed && t->identified &&
		    t->state == AOE_TARGET_STATE_UP)
			list_for_each_entry(p, &t->paths, node) {
				if (p->state != AOE_PATH_STATE_CANDIDATE ||
				    p->check || n >= AOE_MAX_PATHS ||
				    resize_waiting(t, p))
					continue;
				h[n] = aoe_ata_identify_start(t, p);
				if (IS_ERR(h[n]))
					break;
				p->check = h[n++];
			}
		aoe_tl_unlock(t);
		rcu_read_unlock();
		if (!n)
			return;
		deadline = jiffies + msecs_to_jiffies(AOE_CHECK_WAIT_MS);
		for (i = 0; i < n; i++) {
			long left = (long)(deadline - jiffies);

			ret = aoe_ata_identify_wait(t, h[i], left > 0 ? left : 1,
						    &id);
			__skb_queue_head_init(&q);
			rcu_read_lock();
			aoe_tl_lock(t);
			p = path_of_check(t, h[i]);
			if (p && ret > 0) {
				t->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
				p->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
			}
			if (p) {
				p->check = NULL;
				if (!t->removed &&
				    p->state == AOE_PATH_STATE_CANDIDATE)
					cand_checked(t, p, ret, &id, true, &q,
						     &done);
				/* built first: queued first (steer.c) */
				aoe_ata_xmit_locked(t, &q);
				aoe_ata_kick(t);
			}
			aoe_tl_unlock(t);
			rcu_read_unlock();
			aoe_ata_end_requests(&done);
			/* looked up: no other check can have its address yet */
			aoe_ata_identify_free(h[i]);
			if (ret > 0)
				aoe_drop(AOE_DROP_BAD_IDENTIFY, NULL, NULL);
		}
	}
}

static void target_bad_identify(struct aoe_target *t)
{
	aoe_drop(AOE_DROP_BAD_IDENTIFY, NULL, NULL);	/* the module total */
	spin_lock_bh(&t->lock);
	t->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
	spin_unlock_bh(&t->lock);
}

/*
 * The path @t's IDENTIFY goes over: a verified path that is up (one whose
 * last answer was no refusal first), else a candidate (one verified before
 * first). Caller holds the target's lock.
 */
static struct aoe_path *identify_path(struct aoe_target *t)
{
	struct aoe_path *p, *cand = NULL, *refusing = NULL;

	list_for_each_entry(p, &t->paths, node) {
		/* waiting for this IDENTIFY to confirm its capacity: not it */
		if (p->check || resize_waiting(t, p))
			continue;
		/* one the reservation refuses fails the check (-EBADE): last */
		if (p->state == AOE_PATH_STATE_UP && p->payload &&
		    p->refusing && !refusing)
			refusing = p;
		else if (p->state == AOE_PATH_STATE_UP && p->payload)
			return p;
		if (p->state == AOE_PATH_STATE_CANDIDATE &&
		    (!cand || (p->verified && !cand->verified)))
			cand = p;
	}
	return refusing ?: cand;
}

/*
 * One IDENTIFY of @t over the path identify_path() picks, and what its
 * answer means for that path. Returns the answer's status (as
 * aoe_ata_identify_wait(); -ENODEV: no path), with @id filled and *@pathok
 * true when the path is verified by it (or was, and still is). A candidate
 * is promoted (or adopted: the first identity), refused or dropped here.
 */
static int identify_once(struct aoe_target *t, struct aoe_identity *id,
			 bool *pathok)
{
	struct sk_buff_head q;
	struct aoe_ident *h;
	struct aoe_path *p;
	bool cand;
	int ret;
	LIST_HEAD(done);

	*pathok = false;
	rcu_read_lock();
	aoe_tl_lock(t);
	p = t->removed ? NULL : identify_path(t);
	h = p ? aoe_ata_identify_start(t, p) : ERR_PTR(-ENODEV);
	if (!IS_ERR(h))
		p->check = h;
	aoe_tl_unlock(t);
	rcu_read_unlock();
	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = aoe_ata_identify_wait(t, h, msecs_to_jiffies(AOE_IDENTIFY_WAIT_MS),
				    id);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	aoe_tl_lock(t);
	p = path_of_check(t, h);
	if (!p || t->removed) {
		if (p)
			p->check = NULL;
		ret = ret ?: -ENODEV;	/* the path went: its answer is void */
		goto out;
	}
	p->check = NULL;
	cand = p->state != AOE_PATH_STATE_UP;
	if (!t->identified && !ret) {
		/* the first answer of a new target defines its identity */
		ether_addr_copy(t->id_mac, p->mac);
		strscpy(t->id_ifname, p->ifname, sizeof(t->id_ifname));
		if (cand)
			path_promote(t, p);
		*pathok = true;
	} else if (cand && p->state == AOE_PATH_STATE_CANDIDATE) {
		*pathok = cand_checked(t, p, ret, id, false, &q, &done);
	} else if (!cand && !ret) {
		/* a verified path: a revalidate, resize and mode are checked later */
		enum aoe_ident_verdict v = aoe_ident_check(&t->id, id, false);

		if (v == AOE_IDV_MATCH)
			*pathok = true;
		else
			path_refuse(t, p, id, v, &q, &done);
	}
	/* built first: queued first (steer.c) */
	aoe_ata_xmit_locked(t, &q);
	aoe_ata_kick(t);
out:	/* nothing built */
	aoe_tl_unlock(t);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	aoe_ata_identify_free(h);	/* after path_of_check(): see ata.h */
	return ret;
}

/*
 * The target's IDENTIFY ended without publishing an identity: candidates
 * waiting for it to confirm a new capacity are checked again (else they
 * waited for ever: verify_fn() skips them while t->id_seq stays, and a
 * target restarted on a bigger file had no path left). Takes the lock.
 */
static void resize_wait_retry(struct aoe_target *t)
{
	struct aoe_path *p;
	bool any = false;

	spin_lock_bh(&t->lock);
	list_for_each_entry(p, &t->paths, node)
		if (resize_waiting(t, p)) {
			p->resize_wait = false;
			any = true;
		}
	if (any)
		verify_kick(t);
	spin_unlock_bh(&t->lock);
}

/*
 * IDENTIFY, then create or resize the disk: process context, one at a time
 * per target (its work item, in an IDENTIFY slot). The answer is parsed
 * into a local copy, checked, and published in t->id under both locks
 * (the frame encoder reads lba48 there); only this function writes t->id,
 * so it may read it unlocked. A try that did not verify its path (no
 * answer, another device) tries the next path.
 */
static void target_identify_work(struct aoe_target *t)
{
	struct aoe_identity id;
	enum aoe_ident_change change = AOE_IDENT_SAME;
	u64 old_sectors = 0;
	int ret = -ENODEV, tries;
	bool warn, pathok = false;
	u32 was;

	/* a try again only while no other target waits for the slot */
	for (tries = 0; tries < 3 && !READ_ONCE(t->removed) &&
	     !(tries && READ_ONCE(aoe_id_waiting)); tries++) {
		ret = identify_once(t, &id, &pathok);
		/* another device, or no answer: the next path */
		if (ret == -ENODEV || ret > 0 || (!ret && pathok))
			break;
	}
	if (ret < 0 || (!ret && !pathok)) {
		pr_warn_ratelimited("e%u.%u: IDENTIFY %s (%d); retrying at the next discovery\n",
				    t->shelf, t->slot,
				    ret ? "failed" : "answered by another device",
				    ret);
		resize_wait_retry(t);
		return;
	}
	if (ret > 0) {
		target_bad_identify(t);
		pr_warn_ratelimited("e%u.%u: IDENTIFY answer refused (%s)%s\n",
				    t->shelf, t->slot, aoe_ident_err_name(ret),
				    t->bd ? "; the disk stays as it was" : "");
		resize_wait_retry(t);
		return;
	}
	if (id.clamped)
		pr_warn_ratelimited("e%u.%u: IDENTIFY claims more sectors than %s LBA addresses; using %llu\n",
				    t->shelf, t->slot,
				    id.lba48 ? "48-bit" : "28-bit", id.sectors);
	aoe_tl_lock(t);
	if (t->removed) {
		aoe_tl_unlock(t);
		return;
	}
	if (t->bd) {
		/* a disk exists: its addressing never changes under it */
		change = aoe_identify_compare(&t->id, &id);
		if (change == AOE_IDENT_MODE_CHANGED) {
			t->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
			warn = !t->ident_mode_warned;
			t->ident_mode_warned = true;
			aoe_tl_unlock(t);
			aoe_drop(AOE_DROP_BAD_IDENTIFY, NULL, NULL);
			if (warn)
				pr_warn("e%u.%u: IDENTIFY now says %s LBA; the disk stays %s (to take the new device: close it, flush, discover)\n",
					t->shelf, t->slot,
					id.lba48 ? "48-bit" : "28-bit",
					t->id.lba48 ? "48-bit" : "28-bit");
			resize_wait_retry(t);
			return;
		}
		old_sectors = t->id.sectors;
	}
	t->id = id;
	t->id_seq++;	/* candidates waiting for a resize confirmed: checked */
	t->identified = true;
	t->flush_refused = false;	/* identified again: try FLUSH again */
	was = t->state;
	/* up before the disk is added: adding it reads the partition table */
	target_state(t, AOE_TARGET_STATE_UP);
	aoe_tl_unlock(t);

	if (change == AOE_IDENT_RESIZED) {
		pr_info("e%u.%u: capacity %llu -> %llu sectors\n", t->shelf,
			t->slot, old_sectors, id.sectors);
		aoe_blkdev_set_capacity(t, id.sectors);
		aoe_tl_lock(t);
		if (!t->removed)
			aoe_netlink_notify(AOE_CMD_CAPACITY_CHANGED, t, NULL);
		aoe_tl_unlock(t);
	}
	ret = aoe_blkdev_add(t);
	aoe_tl_lock(t);
	if (ret) {
		if (t->state == AOE_TARGET_STATE_UP)
			target_state(t, was);
		aoe_tl_unlock(t);
		pr_err("e%u.%u: cannot create the block device (%d)\n",
		       t->shelf, t->slot, ret);
		return;
	}
	/*
	 * The cache words may have changed (a revalidate of a disk in use):
	 * the queue declares its write cache and FUA anew. The block layer
	 * takes that for requests submitted from then on: flushes already
	 * queued are still sent, a REQ_FUA write queued before FUA went away
	 * still goes out as WRITE DMA FUA EXT (flush.c: it fails if aborted,
	 * never acknowledged from a volatile cache).
	 */
	aoe_target_cache_update(t);
	verify_kick(t);			/* the other candidates */
	if (was != AOE_TARGET_STATE_UP && t->state == AOE_TARGET_STATE_UP) {
		aoe_netlink_notify(AOE_CMD_TARGET_UP, t, NULL);
		pr_info("e%u.%u: %llu sectors (%llu MB)%s, model \"%s\", firmware \"%s\"\n",
			t->shelf, t->slot, t->id.sectors,
			t->id.sectors * AOE_SECTOR_SIZE / 1000000,
			t->id.lba48 ? "" : ", 28-bit LBA", t->id.model,
			t->id.firmware);
	}
	aoe_tl_unlock(t);
}

static void target_work(struct work_struct *work)
{
	struct aoe_target *t = container_of(work, struct aoe_target, work);

	target_identify_work(t);
	identify_done(t);
}

/* @t's flush mode: its own, else the module's aoe_flush. */
static u32 flush_mode_of(const struct aoe_target *t)
{
	return t->flush_mode ? t->flush_mode : READ_ONCE(aoe_flush);
}

bool aoe_target_cache_declare(struct aoe_target *t, bool *wc, bool *fua)
{
	u32 mode = flush_mode_of(t);
	bool changed;

	aoe_t_assert(t);
	/* always: even after an abort (each flush then fails, loudly) */
	*wc = mode == AOE_FLUSH_MODE_ALWAYS ||
	      (mode == AOE_FLUSH_MODE_AUTO && t->id.wcache &&
	       !t->flush_refused);
	*fua = *wc && t->id.fua;
	changed = *wc != t->wc_declared || *fua != t->fua_declared;
	t->wc_declared = *wc;
	t->fua_declared = *fua;
	return changed;
}

/*
 * Declare the queue's write cache anew. One at a time per target (a work
 * item never runs twice at once), so the last state wins; cancelled before
 * the disk is deleted. (aoe_blkdev_add() declares it once before the disk
 * is added, before this work can be queued.)
 */
static void cache_work_fn(struct work_struct *work)
{
	struct aoe_target *t = container_of(work, struct aoe_target,
					    cache_work);
	bool wc, fua, changed;

	spin_lock_bh(&t->lock);
	changed = aoe_target_cache_declare(t, &wc, &fua);
	spin_unlock_bh(&t->lock);
	aoe_blkdev_set_cache(t, wc, fua);
	if (changed)
		pr_info("e%u.%u: %s%s\n", t->shelf, t->slot,
			wc ? "volatile write cache: flushes sent" :
			     "no write cache declared: no flushes sent",
			fua ? ", FUA writes" : "");
}

void aoe_target_cache_update(struct aoe_target *t)
{
	aoe_t_assert(t);
	if (t->bd && !t->removed)
		queue_work(system_wq, &t->cache_work);
}

void aoe_target_flush_refused(struct aoe_target *t)
{
	aoe_t_assert(t);
	if (t->flush_refused)
		return;
	t->flush_refused = true;
	if (flush_mode_of(t) == AOE_FLUSH_MODE_ALWAYS)
		pr_warn("e%u.%u: the target aborted FLUSH CACHE: flushes are still sent (flush mode always) and fail while it aborts them\n",
			t->shelf, t->slot);
	else
		pr_warn("e%u.%u: the target aborted FLUSH CACHE: no write cache declared until it is identified again; fsync is not durable on this target if it caches writes (aoe(4), aoe_flush)\n",
			t->shelf, t->slot);
	aoe_target_cache_update(t);
}

/* aoe_flush changed: every disk declares its cache again. */
void aoe_target_flush_param_changed(void)
{
	struct aoe_target *t;

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		spin_lock(&t->lock);
		aoe_target_cache_update(t);
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
}

int aoe_target_set_flush_mode(u16 shelf, u8 slot, u32 mode)
{
	struct aoe_target *t;
	int ret = -ENOENT;

	if (mode > AOE_FLUSH_MODE_MAX)
		return -EINVAL;
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(shelf, slot);
	if (t) {
		spin_lock(&t->lock);
		t->flush_mode = mode;
		/* an explicit choice: try FLUSH again */
		t->flush_refused = false;
		aoe_target_cache_update(t);
		spin_unlock(&t->lock);
		ret = 0;
	}
	spin_unlock_bh(&aoe_tgt_lock);
	if (!ret)
		pr_info("e%u.%u: flush mode %s\n", shelf, slot,
			aoe_flush_names[mode]);
	return ret;
}

u32 aoe_target_cache_bits(const struct aoe_target *t)
{
	return (t->id.wcache ? AOE_CACHE_ENABLED : 0) |
	       (t->id.flush ? AOE_CACHE_FLUSH : 0) |
	       (t->id.flush_ext ? AOE_CACHE_FLUSH_EXT : 0) |
	       (t->id.fua ? AOE_CACHE_FUA : 0) |
	       (t->flush_refused ? AOE_CACHE_FLUSH_REFUSED : 0) |
	       (t->wc_declared ? AOE_CACHE_WRITE_BACK : 0) |
	       (t->fua_declared ? AOE_CACHE_QUEUE_FUA : 0);
}

/* Re-read a target's config (Query Config) and capacity (IDENTIFY). */
int aoe_target_revalidate(u16 shelf, u8 slot)
{
	struct aoe_target *t;
	int ret = -ENOENT;

	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(shelf, slot);
	if (t) {	/* the answers may raise maxsect and bufcnt (config_rx()) */
		spin_lock(&t->lock);
		t->raise_until = (jiffies + msecs_to_jiffies(AOE_RAISE_MS)) | 1;
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_discover_target(shelf, slot);
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(shelf, slot);
	if (t) {
		spin_lock(&t->lock);
		target_identify(t);
		spin_unlock(&t->lock);
		ret = 0;
	}
	spin_unlock_bh(&aoe_tgt_lock);
	return ret;
}

static void path_set_link(struct aoe_path *p, struct net_device *dev)
{
	p->mtu = dev->mtu;
	p->payload = aoe_payload_for_mtu(dev->mtu, p->maxsect, 0);
	strscpy(p->ifname, dev->name, sizeof(p->ifname));
}

static void target_unlink(struct aoe_target *t, struct list_head *gone,
			  struct list_head *done);
static void target_free(struct aoe_target *t);

/*
 * Which target a new one replaces in a full table: the lowest class, then
 * the one heard from longest ago. None when every disk is open (or being
 * created). Caller holds aoe_tgt_lock.
 */
static struct aoe_target *evict_victim(void)
{
	struct aoe_target *t, *best = NULL;
	int cls, best_cls = 0;

	unsigned long rx, best_rx = 0;
	u32 state;

	/*
	 * bd and openers are the table lock's: whether a target may go at
	 * all is exact. Its state and last answer are its own lock's, read
	 * here as hints for the choice (written with WRITE_ONCE), so a full
	 * table's eviction takes no target's lock but the victim's.
	 */
	list_for_each_entry(t, &aoe_tgt_list, node) {
		state = READ_ONCE(t->state);
		rx = READ_ONCE(t->last_rx);
		if (!t->bd && state != AOE_TARGET_STATE_UP)
			cls = 1;	/* never identified: no disk */
		else if (!t->bd || aoe_blkdev_openers(t))
			continue;	/* disk open or being created */
		else if (state != AOE_TARGET_STATE_UP)
			cls = 2;	/* disk not open, target not up */
		else
			cls = 3;	/* disk not open */
		if (!best || cls < best_cls ||
		    (cls == best_cls && time_before(rx, best_rx))) {
			best = t;
			best_cls = cls;
			best_rx = rx;
		}
	}
	return best;
}

/*
 * The table is full: forget the least useful target for @shelf.@slot.
 * Returns false when none can go. Caller holds aoe_tgt_lock; @done as
 * target_unlink().
 */
static bool evict_one(u16 shelf, u8 slot, struct list_head *done)
{
	struct aoe_target *v = evict_victim();

	if (!v)
		return false;
	net_info_ratelimited("target table full (%d): e%u.%u (%s) forgotten for e%u.%u\n",
			     AOE_MAX_TARGETS, v->shelf, v->slot,
			     v->bd ? "disk not open" : "no disk", shelf, slot);
	atomic64_inc(&aoe_evictions);
	spin_lock(&v->lock);
	if (!v->bd && !v->id_running) {
		/*
		 * No disk and no IDENTIFY work queued or running (only a
		 * dispatched target has its work queued): nothing but this
		 * table refers to it (a lookup in flight under RCU sees it
		 * removed, and kfree_rcu() waits for it), so it goes now, not
		 * via the reaper, and a flood cannot pile up unfreed targets;
		 * unless its tick is running on another CPU (it finds it
		 * unlinked, re-arms nothing, and the reaper waits for it).
		 */
		LIST_HEAD(gone);

		target_unlink(v, &gone, done);
		spin_unlock(&v->lock);
		if (hrtimer_try_to_cancel(&v->timer) >= 0) {
			target_free(v);
			return true;
		}
		list_move_tail(&v->gone_node, &aoe_tgt_evicted);
		queue_work(system_wq, &aoe_reap_work);
		return true;
	}
	target_unlink(v, &aoe_tgt_evicted, done);
	spin_unlock(&v->lock);
	queue_work(system_wq, &aoe_reap_work);
	return true;
}

/*
 * A Query Config response (solicited or an announcement) from a target:
 * create or refresh the target and the path it arrived on.
 */
/* New paths of @t not verified yet (being checked or waiting for it). */
static unsigned int cand_count(const struct aoe_target *t)
{
	const struct aoe_path *p;
	unsigned int n = 0;

	list_for_each_entry(p, &t->paths, node)
		if (p->state == AOE_PATH_STATE_CANDIDATE && !p->verified)
			n++;
	return n;
}

/*
 * @t has no identity yet and every path slot is taken: the candidate that
 * failed its IDENTIFY (made-up MACs never answer) and was heard from longest
 * ago, not being checked, gives its slot to a new path; NULL: none failed.
 * Caller: the lock.
 */
static struct aoe_path *cand_victim(struct aoe_target *t)
{
	struct aoe_path *p, *v = NULL;

	if (t->identified)
		return NULL;
	list_for_each_entry(p, &t->paths, node)
		if (p->state == AOE_PATH_STATE_CANDIDATE && p->failed &&
		    !p->check && (!v || time_before(p->last_rx, v->last_rx)))
			v = p;
	return v;
}

void aoe_target_config_rx(struct net_device *dev, const struct aoe_frame *f)
{
	struct aoe_target *t;
	struct aoe_path *p;
	struct sk_buff_head q;
	bool t_new = false, p_new = false, raise, recheck;
	u32 old_payload, old_path_payload;
	LIST_HEAD(done);

	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (t) {
		spin_lock(&t->lock);
	} else {
		if (aoe_tgt_count >= AOE_MAX_TARGETS &&
		    !evict_one(f->shelf, f->slot, &done)) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_TOO_MANY, NULL, NULL);
			net_warn_ratelimited("target table full (%d), every disk open: e%u.%u ignored\n",
					     AOE_MAX_TARGETS, f->shelf, f->slot);
			return;
		}
		t = kzalloc(sizeof(*t), GFP_ATOMIC);
		if (!t) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_ata_end_requests(&done);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		spin_lock_init(&t->lock);
		spin_lock(&t->lock);
		t->shelf = f->shelf;
		t->slot = f->slot;
		t->rx_cpu = aoe_steer_pick_cpu();
		t->tx_cpu = aoe_steer_pick_tx_cpu(t->rx_cpu);
		target_state(t, AOE_TARGET_STATE_INIT);
		INIT_LIST_HEAD(&t->paths);
		INIT_LIST_HEAD(&t->ports);
		INIT_LIST_HEAD(&t->frames);
		INIT_LIST_HEAD(&t->rq_queue);
		INIT_LIST_HEAD(&t->resend);
		INIT_LIST_HEAD(&t->draining);
		INIT_LIST_HEAD(&t->fenced);
		aoe_tags_init(&t->tags);
		INIT_WORK(&t->work, target_work);
		INIT_WORK(&t->cache_work, cache_work_fn);
		INIT_WORK(&t->verify_work, verify_fn);
		aoe_hrtimer_setup(&t->timer, aoe_target_tick, CLOCK_MONOTONIC,
				  HRTIMER_MODE_ABS_SOFT);
		INIT_LIST_HEAD(&t->id_node);
		/* published whole: a reader under RCU sees it initialised */
		list_add_tail_rcu(&t->node, &aoe_tgt_list);
		hash_add_rcu(aoe_tgt_hash, &t->hnode, tgt_key(t->shelf, t->slot));
		WRITE_ONCE(aoe_tgt_count, aoe_tgt_count + 1);
		aoe_tgt_changed();
		t_new = true;
	}
	old_payload = aoe_target_payload(t);

	p = aoe_path_find(t, dev_net(dev), dev->ifindex, f->src);
	if (!p) {
		enum aoe_drop_reason why = 0;
		struct aoe_path *v;

		if (aoe_conflict_find(&t->conflicts, dev->ifindex, f->src,
				      aoe_target_now_ns())) {
			why = AOE_DROP_ADDRESS_CONFLICT;	/* refused, known */
		} else if (t->npaths >= AOE_MAX_PATHS) {
			v = cand_victim(t);
			if (v) {
				/* never verified: no I/O, no event */
				aoe_ata_path_refused(t, v, &done);
				path_free(t, v);
			}
		}
		if (!why && (t->npaths >= AOE_MAX_PATHS ||
			 (t->identified &&
			  (cand_count(t) >= AOE_CAND_MAX ||
			   !aoe_cand_take(&t->cand, aoe_target_now_ns())))))
			why = AOE_DROP_TOO_MANY;	/* checked later */
		if (why) {
			t->cnt.drops[why]++;
			aoe_tl_unlock(t);
			aoe_ata_end_requests(&done);
			aoe_drop(why, NULL, NULL);
			return;
		}
		p = kzalloc(sizeof(*p), GFP_ATOMIC);
		if (!p) {
			aoe_tl_unlock(t);
			aoe_ata_end_requests(&done);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		p->port = port_get(t, f->src);
		if (!p->port) {
			kfree(p);
			aoe_tl_unlock(t);
			aoe_ata_end_requests(&done);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		write_pnet(&p->net, dev_net(dev));
		p->ifindex = dev->ifindex;
		ether_addr_copy(p->mac, f->src);
		aoe_rtt_init(&p->rtt);
		aoe_timeouts_init(&p->tmo);
		aoe_cwnd_init(&p->win, 1);
		/*
		 * Of a target not identified yet, the newest goes first:
		 * made-up MACs that never answer IDENTIFY, announced before
		 * the real target, do not keep it waiting (scenario 51; the
		 * order heard let 16 of them keep e1.9's slots). A spoofer
		 * announcing after the real target goes first instead: it is
		 * refused or verified by its own IDENTIFY answer. The failed
		 * ones go last (cand_failed()).
		 */
		if (t->identified)
			list_add_tail(&p->node, &t->paths);
		else
			list_add(&p->node, &t->paths);
		t->npaths++;
		aoe_tgt_changed();
		p_new = true;
	}
	/*
	 * Anyone on the segment can answer a Query Config, with any tag: a
	 * verified path's buffer count and sectors per frame only go down on
	 * one (a forged larger maxsect makes frames the target cannot take:
	 * ATA errors; a larger bufcnt overruns its buffers). An admin's
	 * revalidate opens a window to take larger ones (a target restarted
	 * with more).
	 */
	raise = !p->verified ||
		(t->raise_until && time_before(jiffies, t->raise_until));
	if (raise || f->cfg.bufcnt < p->bufcnt)
		p->bufcnt = f->cfg.bufcnt;
	if (p->state == AOE_PATH_STATE_UP)
		p->port->bufcnt = p->bufcnt;
	p->fwver = f->cfg.fwver;
	old_path_payload = p->payload;
	if (raise ||
	    aoe_maxsect_sectors(f->cfg.maxsect) < aoe_maxsect_sectors(p->maxsect))
		p->maxsect = f->cfg.maxsect;
	path_set_link(p, dev);
	if (p_new)	/* no I/O until verified; traced with its name */
		aoe_path_set_state(t, p, AOE_PATH_STATE_CANDIDATE);
	aoe_cwnd_set_cap(&p->win, min_t(u32, p->bufcnt, aoe_maxout));
	if (p->bufcnt < 2 && !t->bufcnt_warned) {
		t->bufcnt_warned = true;
		pr_warn("e%u.%u: target buffer count %u: working with a window of 1 frame\n",
			t->shelf, t->slot, p->bufcnt);
	}
	/*
	 * Its device may have changed: a path that was down answers again, a
	 * path that is up announces itself unsolicited (tag 0, a target that
	 * (re)started). It carries no I/O until it is checked again. Anyone
	 * can send announcements: one takes an up path out for a check at
	 * most once per AOE_ANNOUNCE_RECHECK_MS (a flood of forged ones costs
	 * one check, not the path). One inside that window is not dropped:
	 * the check runs when the window ends (aoe_target_recheck_due()), so
	 * a device swapped right after a check carries I/O for one window
	 * at most.
	 */
	recheck = p->state == AOE_PATH_STATE_UP && !f->tag &&
		  (!p->recheck_at || time_after_eq(jiffies, p->recheck_at));
	if (p->state == AOE_PATH_STATE_UP && !recheck &&
	    p->payload < old_path_payload) {
		/* frames larger than the target takes now: resent in pieces */
		__skb_queue_head_init(&q);
		aoe_ata_payload_shrunk(t, &q);
		aoe_ata_xmit_locked(t, &q);
	}
	if (recheck) {
		path_recheck(t, p, &done);
	} else if (p->state == AOE_PATH_STATE_UP && !f->tag) {
		p->recheck_pending = true;
	} else if (p->state == AOE_PATH_STATE_DOWN) {
		__skb_queue_head_init(&q);
		path_to_candidate(t, p, &q, &done);
		aoe_ata_xmit_locked(t, &q);
	}
	p->last_rx = jiffies;
	p->cnt.frames_received++;
	t->cnt.frames_received++;
	WRITE_ONCE(t->last_rx, p->last_rx);
	t->cfglen = f->cfg.cfglen;
	memcpy(t->config, f->cfg.cfg, f->cfg.cfglen);

	if (t_new)
		aoe_netlink_notify(AOE_CMD_TARGET_NEW, t, NULL);
	if (!t_new && old_payload != aoe_target_payload(t))
		aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
	if (t->state == AOE_TARGET_STATE_DOWN)
		aoe_target_set_state(t, AOE_TARGET_STATE_INIT);
	if (t->state == AOE_TARGET_STATE_INIT)
		target_identify(t);
	else if (p->state == AOE_PATH_STATE_CANDIDATE && !p->check)
		verify_kick(t);
	aoe_tl_unlock(t);
	aoe_ata_end_requests(&done);

	if (t_new)
		pr_info_ratelimited("e%u.%u: new target on %s (%pM), buffer count %u, firmware %04x\n",
				    f->shelf, f->slot, dev->name, f->src,
				    f->cfg.bufcnt, f->cfg.fwver);
}

static void path_free(struct aoe_target *t, struct aoe_path *p)
{
	list_del(&p->node);
	t->npaths--;
	aoe_tgt_changed();
	port_put(p->port);
	kfree(p);
}

/* Link state, MTU and interface removal, from the netdevice notifier. */
void aoe_target_netdev_event(struct net_device *dev, unsigned long event)
{
	bool link = netif_running(dev) && netif_carrier_ok(dev);
	struct aoe_path *p, *tmp;
	bool was_cand;
	struct aoe_target *t;
	struct sk_buff_head q;
	u32 old_payload;
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		struct sk_buff_head tq;	/* this target's: steer.c */
		bool shrunk = false;
		u32 old_path_payload;

		__skb_queue_head_init(&tq);
		spin_lock(&t->lock);
		old_payload = aoe_target_payload(t);
		list_for_each_entry_safe(p, tmp, &t->paths, node) {
			if (p->ifindex != dev->ifindex ||
			    !net_eq(read_pnet(&p->net), dev_net(dev)))
				continue;
			switch (event) {
			case NETDEV_UNREGISTER:
				/* a candidate was never announced as up */
				was_cand = p->state == AOE_PATH_STATE_CANDIDATE;
				aoe_ata_path_gone(t, p, &tq, &done, true);
				if (!was_cand)
					aoe_netlink_notify(AOE_CMD_PATH_DOWN,
							   t, p);
				path_free(t, p);
				break;
			case NETDEV_DOWN:
			case NETDEV_CHANGE:
				/*
				 * Only an up path goes down: a candidate's check
				 * fails on the dead link (cand_failed()).
				 */
				if (link || p->state != AOE_PATH_STATE_UP)
					break;
				aoe_ata_path_gone(t, p, &tq, &done, false);
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
				break;
			case NETDEV_CHANGEMTU:
			case NETDEV_CHANGENAME:
				old_path_payload = p->payload;
				path_set_link(p, dev);
				if (p->payload < old_path_payload)
					shrunk = true;
				break;
			default:
				break;
			}
		}
		if (old_payload != aoe_target_payload(t))
			aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
		if (shrunk)	/* a path's own payload: its frames */
			aoe_ata_payload_shrunk(t, &tq);
		aoe_steer_tx(t, &tq);
		skb_queue_splice_tail_init(&tq, &q);
		spin_unlock(&t->lock);
	}
	aoe_ata_xmit(&q);
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	/* a link that came back: ask its targets to answer (path up again) */
	if ((event == NETDEV_UP || event == NETDEV_CHANGE) && link)
		aoe_discover_send(dev_net(dev), dev->name);
}

/* Unlink @t and fail its I/O. Caller holds aoe_tgt_lock and t->lock. */
static void target_unlink(struct aoe_target *t, struct list_head *gone,
			  struct list_head *done)
{
	lockdep_assert_held(&aoe_tgt_lock);
	aoe_t_assert(t);
	t->removed = true;	/* first: failing its I/O arms no tick */
	aoe_ata_fail_all(t, done);
	aoe_netlink_notify(AOE_CMD_TARGET_GONE, t, NULL);
	identify_forget(t);
	/* readers under RCU may still be on node/hnode: not reused */
	list_del_rcu(&t->node);
	hash_del_rcu(&t->hnode);
	list_add_tail(&t->gone_node, gone);
	WRITE_ONCE(aoe_tgt_count, aoe_tgt_count - 1);
	aoe_tgt_changed();
}

/*
 * Free unlinked @t (no disk, no work): its paths at once, itself after an
 * RCU grace period (a lookup under rcu_read_lock() may still hold it; it
 * then sees t->removed under the lock). Any context.
 */
static void target_free(struct aoe_target *t)
{
	struct aoe_path *p, *pt;

	list_for_each_entry_safe(p, pt, &t->paths, node) {
		list_del(&p->node);
		port_put(p->port);
		kfree(p);
	}
	aoe_tags_free(&t->tags);
	list_del(&t->gone_node);
	kfree_rcu(t, rcu);
}

/* Free unlinked targets: disk, work, paths. Process context. */
static void targets_destroy(struct list_head *gone)
{
	struct aoe_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, gone, gone_node) {
		/* cancelled before it ran: it never gave its slot back */
		if (cancel_work_sync(&t->work))
			identify_done(t);
		if (t->bd && (aoe_test_faults & AOE_TEST_SLOW_TEARDOWN))
			msleep(3000);
		/* unlinked: nothing queues them again, nor arms the tick */
		cancel_work_sync(&t->verify_work);
		cancel_work_sync(&t->cache_work);
		hrtimer_cancel(&t->timer);
		aoe_blkdev_del(t);
		target_free(t);
	}
}

/*
 * Forget targets that are not open: all == false only those that are not
 * up, all == true every one. shelf/slot < 0: any. Returns how many.
 */
int aoe_target_flush(bool all, int shelf, int slot)
{
	struct aoe_target *t, *tmp;
	LIST_HEAD(gone);
	LIST_HEAD(done);
	int n = 0;

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry_safe(t, tmp, &aoe_tgt_list, node) {
		if (shelf >= 0 && (t->shelf != shelf || t->slot != slot))
			continue;
		if (aoe_blkdev_openers(t))
			continue;
		spin_lock(&t->lock);
		if (all || t->state != AOE_TARGET_STATE_UP) {
			target_unlink(t, &gone, &done);
			n++;
		}
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_ata_end_requests(&done);
	targets_destroy(&gone);
	return n;
}

int aoe_target_init(void)
{
	int i;

	for (i = 0; i < __AOE_DROP_MAX; i++)
		atomic64_set(&aoe_drops_total[i], 0);
	atomic64_set(&aoe_evictions, 0);
	aoe_tgt_seed = get_random_u32();
	return 0;
}

void aoe_target_uninit(void)
{
	struct aoe_target *t, *tmp;
	LIST_HEAD(gone);
	LIST_HEAD(done);

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry_safe(t, tmp, &aoe_tgt_list, node) {
		spin_lock(&t->lock);
		target_unlink(t, &gone, &done);
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_ata_end_requests(&done);
	targets_destroy(&gone);
	/* evicted ones: the receive path is gone, nothing queues it again */
	flush_work(&aoe_reap_work);
	reap_fn(NULL);
}
