// SPDX-License-Identifier: GPL-2.0
/*
 * The target table: every shelf.slot that answered Query Config, and per
 * target every path (local interface x target MAC) with what the target
 * announced on it. Updated from the receive path (softirq) under a BH-safe
 * spinlock; read by netlink under the same lock.
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
 * requests, which ata.c sends as FLUSH CACHE (EXT)) when the flush mode
 * (the target's, else aoe_flush) is "always", or "auto" and IDENTIFY says
 * the cache is on; and FUA when it declares the cache and the target has
 * WRITE DMA FUA EXT. Never once the target aborted a FLUSH. cache_work
 * applies it to the queue (the block layer's update sleeps); it is queued
 * after IDENTIFY, on a mode change and on an aborted FLUSH.
 *
 * Locking: aoe_tgt_lock (BH-safe) protects the table, every target and path,
 * the IDENTIFY wait lists and slot count, and the evicted list.
 */
#include <linux/atomic.h>
#include <linux/etherdevice.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "aoe_trace.h"
#include "ata.h"
#include "blkdev.h"
#include "discover.h"
#include "netlink.h"
#include "params.h"
#include "target.h"

static const char *const aoe_flush_names[] = {
	[AOE_FLUSH_MODE_DEFAULT] = "default",
	[AOE_FLUSH_MODE_AUTO] = "auto",
	[AOE_FLUSH_MODE_ALWAYS] = "always",
	[AOE_FLUSH_MODE_NEVER] = "never",
};

DEFINE_SPINLOCK(aoe_tgt_lock);
LIST_HEAD(aoe_tgt_list);
u32 aoe_tgt_generation = 1;
unsigned int aoe_tgt_count;

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
	list_splice_init(&aoe_tgt_evicted, &gone);
	spin_unlock_bh(&aoe_tgt_lock);
	targets_destroy(&gone);
}

static DECLARE_WORK(aoe_reap_work, reap_fn);

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
	struct aoe_target *t;

	lockdep_assert_held(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node)
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

/* The payload the target's device can use: the smallest over usable paths. */
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

void aoe_drop(enum aoe_drop_reason reason, struct net_device *dev,
	      const struct aoe_frame *f)
{
	struct aoe_target *t;
	struct aoe_path *p;

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
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (t) {
		t->cnt.drops[reason]++;
		p = aoe_path_find(t, dev_net(dev), dev->ifindex, f->src);
		if (p)
			p->cnt.drops[reason]++;
	}
	spin_unlock_bh(&aoe_tgt_lock);
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
	lockdep_assert_held(&aoe_tgt_lock);
	if (t->state != state)
		trace_aoe_target_state(t->shelf, t->slot, t->state, state);
	t->state = state;
}

void aoe_path_set_state(struct aoe_target *t, struct aoe_path *p, u32 state)
{
	lockdep_assert_held(&aoe_tgt_lock);
	if (p->state != state)
		trace_aoe_path_state(t->shelf, t->slot, p->ifindex, p->ifname,
				     p->mac, p->state, state);
	p->state = state;
}

void aoe_target_set_state(struct aoe_target *t, u32 state)
{
	lockdep_assert_held(&aoe_tgt_lock);
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

/* Off the IDENTIFY wait lists: @t is being unlinked. Caller holds the lock. */
static void identify_forget(struct aoe_target *t)
{
	if (!list_empty(&t->id_node)) {
		list_del_init(&t->id_node);
		aoe_id_waiting--;
	}
	t->id_again = false;
}

static void target_bad_identify(struct aoe_target *t)
{
	aoe_drop(AOE_DROP_BAD_IDENTIFY, NULL, NULL);	/* the module total */
	spin_lock_bh(&aoe_tgt_lock);
	t->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
	spin_unlock_bh(&aoe_tgt_lock);
}

/*
 * IDENTIFY, then create or resize the disk: process context, one at a time
 * per target (its work item, in an IDENTIFY slot). The answer is parsed into a local copy, checked,
 * and published in t->id under aoe_tgt_lock (the frame encoder reads lba48
 * there); only this function writes t->id, so it may read it unlocked.
 */
static void target_identify_work(struct aoe_target *t)
{
	struct aoe_identity id;
	enum aoe_ident_change change = AOE_IDENT_SAME;
	u64 old_sectors = 0;
	int ret = -ENODEV, tries;
	bool warn;
	u32 was;

	/* a try again only while no other target waits for the slot */
	for (tries = 0; tries < 3 && !READ_ONCE(t->removed) &&
	     !(tries && READ_ONCE(aoe_id_waiting)); tries++) {
		ret = aoe_ata_identify(t, &id);
		if (ret >= 0 || ret == -ENODEV)
			break;
	}
	if (ret < 0) {
		pr_warn_ratelimited("e%u.%u: IDENTIFY failed (%d); retrying at the next discovery\n",
				    t->shelf, t->slot, ret);
		return;
	}
	if (ret > 0) {
		target_bad_identify(t);
		pr_warn_ratelimited("e%u.%u: IDENTIFY answer refused (%s)%s\n",
				    t->shelf, t->slot, aoe_ident_err_name(ret),
				    t->bd ? "; the disk stays as it was" : "");
		return;
	}
	if (id.clamped)
		pr_warn_ratelimited("e%u.%u: IDENTIFY claims more sectors than %s LBA addresses; using %llu\n",
				    t->shelf, t->slot,
				    id.lba48 ? "48-bit" : "28-bit", id.sectors);
	spin_lock_bh(&aoe_tgt_lock);
	if (t->removed) {
		spin_unlock_bh(&aoe_tgt_lock);
		return;
	}
	if (t->bd) {
		/* a disk exists: its addressing never changes under it */
		change = aoe_identify_compare(&t->id, &id);
		if (change == AOE_IDENT_MODE_CHANGED) {
			t->cnt.drops[AOE_DROP_BAD_IDENTIFY]++;
			warn = !t->ident_mode_warned;
			t->ident_mode_warned = true;
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_BAD_IDENTIFY, NULL, NULL);
			if (warn)
				pr_warn("e%u.%u: IDENTIFY now says %s LBA; the disk stays %s (to take the new device: close it, flush, discover)\n",
					t->shelf, t->slot,
					id.lba48 ? "48-bit" : "28-bit",
					t->id.lba48 ? "48-bit" : "28-bit");
			return;
		}
		old_sectors = t->id.sectors;
	}
	t->id = id;
	t->flush_refused = false;	/* identified again: try FLUSH again */
	was = t->state;
	/* up before the disk is added: adding it reads the partition table */
	target_state(t, AOE_TARGET_STATE_UP);
	spin_unlock_bh(&aoe_tgt_lock);

	if (change == AOE_IDENT_RESIZED) {
		pr_info("e%u.%u: capacity %llu -> %llu sectors\n", t->shelf,
			t->slot, old_sectors, id.sectors);
		aoe_blkdev_set_capacity(t, id.sectors);
		spin_lock_bh(&aoe_tgt_lock);
		if (!t->removed)
			aoe_netlink_notify(AOE_CMD_CAPACITY_CHANGED, t, NULL);
		spin_unlock_bh(&aoe_tgt_lock);
	}
	ret = aoe_blkdev_add(t);
	spin_lock_bh(&aoe_tgt_lock);
	if (ret) {
		if (t->state == AOE_TARGET_STATE_UP)
			target_state(t, was);
		spin_unlock_bh(&aoe_tgt_lock);
		pr_err("e%u.%u: cannot create the block device (%d)\n",
		       t->shelf, t->slot, ret);
		return;
	}
	/*
	 * The cache words may have changed (a revalidate of a disk in use):
	 * the queue declares its write cache and FUA anew. The block layer
	 * takes that for requests submitted from then on: flushes already
	 * queued are still sent, a REQ_FUA write queued before FUA went away
	 * still goes out as WRITE DMA FUA EXT (ata.c: it fails if aborted,
	 * never acknowledged from a volatile cache).
	 */
	aoe_target_cache_update(t);
	if (was != AOE_TARGET_STATE_UP && t->state == AOE_TARGET_STATE_UP) {
		aoe_netlink_notify(AOE_CMD_TARGET_UP, t, NULL);
		pr_info("e%u.%u: %llu sectors (%llu MB)%s, model \"%s\", firmware \"%s\"\n",
			t->shelf, t->slot, t->id.sectors,
			t->id.sectors * AOE_SECTOR_SIZE / 1000000,
			t->id.lba48 ? "" : ", 28-bit LBA", t->id.model,
			t->id.firmware);
	}
	spin_unlock_bh(&aoe_tgt_lock);
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

	lockdep_assert_held(&aoe_tgt_lock);
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

	spin_lock_bh(&aoe_tgt_lock);
	changed = aoe_target_cache_declare(t, &wc, &fua);
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_blkdev_set_cache(t, wc, fua);
	if (changed)
		pr_info("e%u.%u: %s%s\n", t->shelf, t->slot,
			wc ? "volatile write cache: flushes sent" :
			     "no write cache declared: no flushes sent",
			fua ? ", FUA writes" : "");
}

void aoe_target_cache_update(struct aoe_target *t)
{
	lockdep_assert_held(&aoe_tgt_lock);
	if (t->bd && !t->removed)
		queue_work(system_wq, &t->cache_work);
}

void aoe_target_flush_refused(struct aoe_target *t)
{
	lockdep_assert_held(&aoe_tgt_lock);
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
	list_for_each_entry(t, &aoe_tgt_list, node)
		aoe_target_cache_update(t);
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
		t->flush_mode = mode;
		/* an explicit choice: try FLUSH again */
		t->flush_refused = false;
		aoe_target_cache_update(t);
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

	aoe_discover_target(shelf, slot);
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(shelf, slot);
	if (t) {
		target_identify(t);
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

	list_for_each_entry(t, &aoe_tgt_list, node) {
		if (!t->bd && t->state != AOE_TARGET_STATE_UP)
			cls = 1;	/* never identified: no disk */
		else if (!t->bd || aoe_blkdev_openers(t))
			continue;	/* disk open or being created */
		else if (t->state != AOE_TARGET_STATE_UP)
			cls = 2;	/* disk not open, target not up */
		else
			cls = 3;	/* disk not open */
		if (!best || cls < best_cls ||
		    (cls == best_cls && time_before(t->last_rx, best->last_rx))) {
			best = t;
			best_cls = cls;
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
	if (!v->bd && !v->id_running) {
		/*
		 * No disk and no IDENTIFY work queued or running (only a
		 * dispatched target has its work queued): nothing but this
		 * table refers to it, so it goes now, not via the reaper, and
		 * a flood cannot pile up unfreed targets.
		 */
		LIST_HEAD(gone);

		target_unlink(v, &gone, done);
		target_free(v);
		return true;
	}
	target_unlink(v, &aoe_tgt_evicted, done);
	queue_work(system_wq, &aoe_reap_work);
	return true;
}

/*
 * A Query Config response (solicited or an announcement) from a target:
 * create or refresh the target and the path it arrived on.
 */
void aoe_target_config_rx(struct net_device *dev, const struct aoe_frame *f)
{
	struct aoe_target *t;
	struct aoe_path *p;
	bool t_new = false, p_new = false;
	u32 old_payload;
	LIST_HEAD(done);

	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (!t) {
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
		t->shelf = f->shelf;
		t->slot = f->slot;
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
		INIT_LIST_HEAD(&t->id_node);
		list_add_tail(&t->node, &aoe_tgt_list);
		aoe_tgt_count++;
		aoe_tgt_generation++;
		t_new = true;
	}
	old_payload = aoe_target_payload(t);

	p = aoe_path_find(t, dev_net(dev), dev->ifindex, f->src);
	if (!p) {
		if (t->npaths >= AOE_MAX_PATHS) {
			t->cnt.drops[AOE_DROP_TOO_MANY]++;
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_ata_end_requests(&done);
			aoe_drop(AOE_DROP_TOO_MANY, NULL, NULL);
			return;
		}
		p = kzalloc(sizeof(*p), GFP_ATOMIC);
		if (!p) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_ata_end_requests(&done);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		p->port = port_get(t, f->src);
		if (!p->port) {
			kfree(p);
			spin_unlock_bh(&aoe_tgt_lock);
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
		list_add_tail(&p->node, &t->paths);
		t->npaths++;
		aoe_tgt_generation++;
		p_new = true;
	}
	p->bufcnt = f->cfg.bufcnt;
	p->port->bufcnt = f->cfg.bufcnt;
	p->fwver = f->cfg.fwver;
	p->maxsect = f->cfg.maxsect;
	path_set_link(p, dev);
	aoe_cwnd_set_cap(&p->win, min_t(u32, p->bufcnt, aoe_maxout));
	if (p->bufcnt < 2 && !t->bufcnt_warned) {
		t->bufcnt_warned = true;
		pr_warn("e%u.%u: target buffer count %u: working with a window of 1 frame\n",
			t->shelf, t->slot, p->bufcnt);
	}
	if (p->state != AOE_PATH_STATE_UP) {
		aoe_path_set_state(t, p, AOE_PATH_STATE_UP);
		if (!p_new && !t_new)
			aoe_netlink_notify(AOE_CMD_PATH_UP, t, p);
	}
	p->last_rx = jiffies;
	p->cnt.frames_received++;
	t->cnt.frames_received++;
	t->last_rx = p->last_rx;
	t->cfglen = f->cfg.cfglen;
	memcpy(t->config, f->cfg.cfg, f->cfg.cfglen);

	if (t_new)
		aoe_netlink_notify(AOE_CMD_TARGET_NEW, t, NULL);
	else if (p_new)
		aoe_netlink_notify(AOE_CMD_PATH_UP, t, p);
	if (!t_new && old_payload != aoe_target_payload(t))
		aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
	if (t->state == AOE_TARGET_STATE_DOWN)
		aoe_target_set_state(t, AOE_TARGET_STATE_INIT);
	if (t->state == AOE_TARGET_STATE_INIT)
		target_identify(t);
	else
		aoe_ata_kick(t);	/* a path may be back: send what waits */
	spin_unlock_bh(&aoe_tgt_lock);
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
	aoe_tgt_generation++;
	port_put(p->port);
	kfree(p);
}

/* Link state, MTU and interface removal, from the netdevice notifier. */
void aoe_target_netdev_event(struct net_device *dev, unsigned long event)
{
	bool link = netif_running(dev) && netif_carrier_ok(dev);
	struct aoe_path *p, *tmp;
	struct aoe_target *t;
	struct sk_buff_head q;
	u32 old_payload;
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		old_payload = aoe_target_payload(t);
		list_for_each_entry_safe(p, tmp, &t->paths, node) {
			if (p->ifindex != dev->ifindex ||
			    !net_eq(read_pnet(&p->net), dev_net(dev)))
				continue;
			switch (event) {
			case NETDEV_UNREGISTER:
				aoe_ata_path_gone(t, p, &q, &done, true);
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
				path_free(t, p);
				break;
			case NETDEV_DOWN:
			case NETDEV_CHANGE:
				if (link || p->state == AOE_PATH_STATE_DOWN)
					break;
				aoe_ata_path_gone(t, p, &q, &done, false);
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
				break;
			case NETDEV_CHANGEMTU:
			case NETDEV_CHANGENAME:
				path_set_link(p, dev);
				break;
			default:
				break;
			}
		}
		if (old_payload != aoe_target_payload(t))
			aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
		if (aoe_target_payload(t) < old_payload)
			aoe_ata_payload_shrunk(t, &q);
	}
	aoe_ata_xmit(&q);
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	/* a link that came back: ask its targets to answer (path up again) */
	if ((event == NETDEV_UP || event == NETDEV_CHANGE) && link)
		aoe_discover_send(dev_net(dev), dev->name);
}

/* Unlink @t and fail its I/O. Caller holds aoe_tgt_lock. */
static void target_unlink(struct aoe_target *t, struct list_head *gone,
			  struct list_head *done)
{
	aoe_ata_fail_all(t, done);
	aoe_netlink_notify(AOE_CMD_TARGET_GONE, t, NULL);
	t->removed = true;
	identify_forget(t);
	list_move_tail(&t->node, gone);
	aoe_tgt_count--;
	aoe_tgt_generation++;
}

/* Free unlinked @t (no disk, no work): its paths and itself. Any context. */
static void target_free(struct aoe_target *t)
{
	struct aoe_path *p, *pt;

	list_for_each_entry_safe(p, pt, &t->paths, node) {
		list_del(&p->node);
		port_put(p->port);
		kfree(p);
	}
	list_del(&t->node);
	kfree(t);
}

/* Free unlinked targets: disk, work, paths. Process context. */
static void targets_destroy(struct list_head *gone)
{
	struct aoe_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, gone, node) {
		/* cancelled before it ran: it never gave its slot back */
		if (cancel_work_sync(&t->work))
			identify_done(t);
		if (t->bd && (aoe_test_faults & AOE_TEST_SLOW_TEARDOWN))
			msleep(3000);
		/* unlinked: nothing queues it again */
		cancel_work_sync(&t->cache_work);
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
		if (!all && t->state == AOE_TARGET_STATE_UP)
			continue;
		target_unlink(t, &gone, &done);
		n++;
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
	return 0;
}

void aoe_target_uninit(void)
{
	struct aoe_target *t, *tmp;
	LIST_HEAD(gone);
	LIST_HEAD(done);

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry_safe(t, tmp, &aoe_tgt_list, node)
		target_unlink(t, &gone, &done);
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_ata_end_requests(&done);
	targets_destroy(&gone);
	/* evicted ones: the receive path is gone, nothing queues it again */
	flush_work(&aoe_reap_work);
	reap_fn(NULL);
}
