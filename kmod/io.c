// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O engine's frames (struct aoe_io, io.h) from allocation to free:
 * walks over a request's byte ranges, the zero-copy ubuf_info and its
 * release callback, a frame's end (its stale-write fence, its bytes
 * accounted to its request), answered writes draining while a copy is still
 * out, zombies, ending requests, failing a target's I/O, the blk-mq timeout,
 * and the engine's init and teardown.
 *
 * Write data goes out from the request's pages, as skb frags tracked by a
 * zero-copy ubuf_info per frame (where the device does scatter-gather and
 * the pages may be referenced; else it is copied into the frame). The
 * networking core calls back when no copy of a transmission references the
 * pages any more; it copies them itself where it must (a frame forwarded to
 * another device such as a veth peer, delivery to a packet handler of this
 * host, devices that rewrite headers). A frame's request ends only when
 * every transmission of the frame is released, because a retransmitted,
 * delayed or duplicated copy can outlive the answer (a qdisc, a peer's
 * socket) and must not carry pages the application has reused.
 *
 * aoe_zerocopy_forward=Y (off by default) marks each zero-copy skb
 * SKBFL_DONT_ORPHAN (the flag MSG_ZEROCOPY's skbs carry): the core no
 * longer copies the pages where it forwards or clones the skb (a veth, a
 * bridge port or flood, macvlan/ipvlan, tc mirred), nor in skb_zerocopy()
 * (nfqueue, an Open vSwitch upcall, whose netlink message then carries them
 * to a socket); it still copies them for a packet handler, and a peer's
 * rx_handler (aoe_ktgt's) reads them in place. Off by default because the
 * pages then reach every namespace on the segment, and unlike MSG_ZEROCOPY
 * this engine may end the request while an skb still holds them (zombies:
 * aoe_drain() aoe_deadsecs after the answer, a frame or target failed, the
 * blk-mq timeout): whoever holds a frame there (anyone with CAP_NET_ADMIN
 * in a namespace of a bridge port) sees what is written into those pages
 * next (an application's buffer, the page cache), can delay every write of
 * the target to its deadline and then fail it, and keeps aoe.ko loaded.
 * Without it only queues of the sending host's own devices hold the pages
 * themselves.
 *
 * Zero-copy lifetime. io->zc.refcnt counts the engine's own reference (held
 * until the frame is answered or failed) plus one per skb that references
 * the frame's pages (the networking core takes those). Whoever drops the
 * last one owns the frame's end: the engine (under the lock) ends the
 * request at once; the release callback, which runs in any context,
 * possibly inside dev_queue_xmit() with t->lock held, only puts the
 * frame on aoe_zc_released and queues aoe_zc_work, which ends the request
 * (or frees a zombie) in process context under the lock. A frame that ever
 * went out zero-copy holds a module reference until it is freed, so rmmod is
 * refused ("in use") while a qdisc or a stalled device holds its pages:
 * nothing the release callback reaches, its code included, can be unloaded
 * under it (see aoe_zc_complete()).
 *
 * Stale-write fence (fence.c): a write frame that ends while a copy of it
 * may still be in the network (sent again, presumed lost, failed) leaves a
 * ghost of its sectors (aoe_io_fence()); aoe_kick() holds a request that
 * must wait for one on target->fenced, the tick sends it on when the ghost
 * is gone.
 *
 * Locking: the frame's target's lock (t->lock) for everything here, except
 * aoe_zc_complete() (any context, no lock), aoe_io_claim_end() (takes it),
 * aoe_ata_end_requests() (after the lock is dropped), aoe_zc_work_fn() and
 * aoe_ata_timeout(), which take it themselves (process context), and
 * aoe_ata_init() / aoe_ata_uninit() (module load and unload). aoe_zombies,
 * aoe_zombie_writes (io.h) and io->zombie are under aoe_zombie_lock
 * (BH-safe), taken inside t->lock where both are held; io->zombie is set
 * with both held, so either makes it
 * stable. A frame on target->draining or aoe_zombies stays allocated while
 * it is on that list (only aoe_zc_work frees a frame the callback released,
 * and it takes it off the list under the list's lock first); so does the
 * target of a frame on its draining list: a draining frame's request is not
 * ended, so the disk and the target stay (a target being torn down makes
 * its draining frames zombies first, aoe_drain(), and is freed after an
 * RCU grace period). aoe_zc_released is a lock-free llist.
 */
#include <linux/blk-mq.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "aoe_trace.h"
#include "ata.h"
#include "compat.h"
#include "fence.h"
#include "io.h"
#include "params.h"
#include "policy.h"
#include "steer.h"
#include "target.h"

struct kmem_cache *aoe_io_cache;
/* frames whose request ended while a transmission was still out */
LIST_HEAD(aoe_zombies);
DEFINE_SPINLOCK(aoe_zombie_lock);
unsigned int aoe_zombie_writes[1 << AOE_ZOMBIE_BUCKET_BITS];
/* frames whose last skb let go of their pages, for aoe_zc_work */
static LLIST_HEAD(aoe_zc_released);
static void aoe_zc_work_fn(struct work_struct *work);
static DECLARE_WORK(aoe_zc_work, aoe_zc_work_fn);

/*
 * An skb released a frame's pages. Any context (hard or soft irq, process
 * context, inside dev_queue_xmit() with t->lock held): no lock taken,
 * nothing slept on; the last release hands the frame to aoe_zc_work.
 *
 * The module stays loaded while the frame holds its module reference. It is
 * dropped when the frame is freed: by aoe_zc_work, or by the engine when it
 * drops the frame's last reference, either possibly on another CPU right
 * after refcount_dec_and_test() below, while this function still runs.
 * Unloading then still has to pass the synchronize_net() of aoe_netif_uninit(), the
 * synchronize_rcu() of aoe_ata_uninit() and that of free_module(): each
 * waits for this RCU read-side section, so queue_work() has returned before
 * aoe_ata_uninit() flushes the work, and the module's memory is freed only
 * after rcu_read_unlock(). What is left is the return from this function.
 * Where the core frees skbs with preemption or bottom halves disabled (every
 * transmit and completion path, qdiscs, softirqs) that too is inside the
 * grace period; where it frees them from preemptible process context (e.g.
 * rtnl_kfree_skbs() after "tc qdisc del"), a preemption on exactly those
 * instructions, lasting for all of rmmod's teardown, is the one window left:
 * the same one every modular user of a release callback has (vhost_net's
 * zerocopy callback ends the same way), and one only a callback owned by
 * core code could close.
 */
static void aoe_zc_complete(struct sk_buff *skb, struct ubuf_info *uarg,
			    bool zerocopy_success)
{
	struct aoe_io *io = container_of(uarg, struct aoe_io, zc);

	rcu_read_lock();
	if (refcount_dec_and_test(&uarg->refcnt)) {
		llist_add(&io->released, &aoe_zc_released);
		queue_work(system_highpri_wq, &aoe_zc_work);
	}
	rcu_read_unlock();
}

#ifdef AOE_HAVE_UBUF_OPS
static const struct ubuf_info_ops aoe_zc_ops = {
	.complete = aoe_zc_complete,
};
#endif

/* @p at the first byte of @rq (a request without data: bio NULL). */
void aoe_rq_pos_start(struct aoe_rq_pos *p, struct request *rq)
{
	p->bio = rq->bio;
	if (p->bio)
		p->iter = p->bio->bi_iter;
}

/* @p @bytes further on, into the next bios as the current one ends. */
void aoe_rq_pos_advance(struct aoe_rq_pos *p, u32 bytes)
{
	while (bytes && p->bio) {
		u32 n = min(bytes, p->iter.bi_size);

		bio_advance_iter(p->bio, &p->iter, n);
		bytes -= n;
		if (!p->iter.bi_size) {
			p->bio = p->bio->bi_next;
			if (p->bio)
				p->iter = p->bio->bi_iter;
		}
	}
}

/*
 * Call @fn for each page segment of @io's bytes of its request (one page at
 * most, as rq_for_each_segment() gives them), from @io->pos: a frame walks
 * its own segments, not the request's from its first. Returns the bytes
 * walked: @io->len unless the request's bios end first, which the block
 * layer never lets happen (a warning; a copied write zeroes the rest).
 */
u32 aoe_io_range(struct aoe_io *io, aoe_seg_fn fn, void *arg)
{
	struct bio *bio = io->pos.bio;
	struct bvec_iter iter = io->pos.iter;
	u32 from = 0;

	while (bio && from < io->len) {
		struct bio_vec bv;

		if (!iter.bi_size) {
			bio = bio->bi_next;
			if (bio)
				iter = bio->bi_iter;
			continue;
		}
		bv = bio_iter_iovec(bio, iter);	/* one page at most */
		bv.bv_len = min(bv.bv_len, io->len - from);
		fn(&bv, from, arg);
		from += bv.bv_len;
		bio_advance_iter_single(bio, &iter, bv.bv_len);
	}
	WARN_ON_ONCE(from < io->len);
	return from;
}

struct aoe_io *aoe_io_alloc(struct aoe_target *t, gfp_t gfp)
{
	struct aoe_io *io = kmem_cache_zalloc(aoe_io_cache, gfp);

	if (!io)
		return NULL;
	io->t = t;
	INIT_LIST_HEAD(&io->rnode);
#ifdef AOE_HAVE_UBUF_OPS
	io->zc.ops = &aoe_zc_ops;
#else
	io->zc.callback = aoe_zc_complete;
#endif
	refcount_set(&io->zc.refcnt, 1);
	io->zc.flags = SKBFL_ZEROCOPY_FRAG;
	return io;
}

void aoe_io_free(struct aoe_io *io)
{
	bool modref = io->modref;

	kmem_cache_free(aoe_io_cache, io);
	if (modref)
		module_put(THIS_MODULE);
}

void aoe_count_lost(struct aoe_target *t, struct aoe_io *io)
{
	if (io->path)
		io->path->cnt.lost++;
	t->cnt.lost++;
}

/* Take @io off the target's lists and windows; answers to it are late now. */
static void io_unlink(struct aoe_target *t, struct aoe_io *io)
{
	aoe_tag_retire(&t->tags, &io->tag_ent);
	aoe_tag_retire(&t->tags, &io->prev_ent);
	list_del(&io->node);
	if (aoe_io_waiting(io))
		list_del(&io->rnode);
	else
		aoe_path_out_dec(io->path);
	t->outstanding--;
}

/*
 * Write frame @io ends: answered through the transmission with @tag on @p
 * at @now (@answered), or not. Copies of it that were not answered may
 * still be in the network: fence their sectors (fence.c). Before
 * io_unlink().
 */
void aoe_io_fence(struct aoe_target *t, struct aoe_io *io, bool answered,
		  u32 tag, struct aoe_path *p, ktime_t now)
{
	u32 sectors = io->len >> SECTOR_SHIFT;
	bool cur = answered && tag == io->tag;
	bool has_tag = false;
	ktime_t sent = io->sent;
	u32 other = io->tag;
	int ifindex = io->path ? io->path->ifindex : 0;

	if (!io->rq || !io->write || !io->sent || io->fenced)
		return;
	io->fenced = true;
	if (answered)
		aoe_fence_answered_on(t, p, io->lba, sectors,
				      ktime_to_ns(cur ? io->sent : io->prev_sent),
				      io->rto_us, ktime_to_ns(now));
	if (!answered) {
		/* one copy: its late answer is explained by the ghost */
		has_tag = !io->tries;
	} else if (!io->tries) {
		return;			/* the only copy was answered */
	} else if (io->tries == 1 && !cur && io->refused) {
		return;			/* the other one was refused: answered */
	} else if (io->tries == 1 && !cur) {
		has_tag = true;		/* the current one is out */
	} else if (io->tries == 1 && aoe_tag_in_table(&io->prev_ent)) {
		has_tag = true;		/* the previous one is out */
		other = io->prev_tag;
		sent = io->prev_sent;
		ifindex = io->prev_ifindex;
	}
	/* more copies out (or the previous one's tag forgotten): time only */
	aoe_fence_ghost(t, io->lba, sectors, has_tag, other, ifindex,
			ktime_to_ns(sent), io->rto_us);
}

/* Account @io's bytes to its request; the request ends when all are in. */
static void io_complete(struct aoe_io *io, struct list_head *done)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(io->rq);

	if (io->status)
		r->status = io->status;
	WRITE_ONCE(r->moved, jiffies | 1);
	r->done += io->flush ? 1 : io->len;
	if (r->done >= aoe_rq_units(io->rq))
		list_add_tail(&r->node, done);
}

void aoe_io_finish(struct aoe_target *t, struct aoe_io *io,
		   blk_status_t st, struct list_head *done)
{
	aoe_io_fence(t, io, false, 0, NULL, 0);	/* not answered: every copy */
	io_unlink(t, io);
	if (st)
		trace_aoe_frame_failed(t->shelf, t->slot, io->lba,
				       io->len / AOE_SECTOR_SIZE, aoe_io_cmd(io),
				       io->tries, (__force u8)st,
				       jiffies_to_msecs(jiffies -
							io->first_sent));
	if (io->ident) {
		/* -EBADE for AOE_BLK_STS_RESERVED */
		io->ident->error = blk_status_to_errno(st);
		complete(&io->ident->done);
		aoe_io_free(io);
		return;
	}
	if (io->flush)
		aoe_io_flush_done(t, io, st);
	io->status = st;
	if (!refcount_dec_and_test(&io->zc.refcnt)) {
		/*
		 * An skb still holds its pages: the request ends when the last
		 * one lets go (aoe_zc_work), or at aoe_drain()'s deadline.
		 */
		io->drain_since = jiffies;
		list_add_tail(&io->node, &t->draining);
		aoe_arm_timer(t);
		return;
	}
	io_complete(io, done);
	aoe_io_free(io);
}

static void io_zombie(struct aoe_io *io);

/*
 * Read frame @io was answered: its data is copied into its request's pages
 * after the lock is dropped (receive.c), so no other CPU spins on the lock
 * while it is. Off every list and window from here (its tags are retired:
 * a later answer is late), so no answer, timer, path change or failure can
 * end it; its bytes count in r->copying until aoe_io_claim_end(), so the
 * blk-mq timeout leaves the request to the copy (aoe_ata_timeout()). The
 * request holds its disk's queue, so the target outlives the copy (its
 * teardown waits in del_gendisk()). Caller holds the lock.
 */
void aoe_io_claim(struct aoe_target *t, struct aoe_io *io)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(io->rq);

	io_unlink(t, io);
	r->copying += io->len;
	/* progress: the backstop must not fail it while the data comes in */
	WRITE_ONCE(r->moved, jiffies | 1);
}

/*
 * The data of claimed frame @io is in its pages: account it to its request
 * (on @done when that was its last byte) and free it. No lock held; takes
 * t->lock (the request's engine fields are its). A read frame never sent its
 * pages (zero-copy is for writes): the engine holds its only reference.
 */
void aoe_io_claim_end(struct aoe_target *t, struct aoe_io *io,
		      struct list_head *done)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(io->rq);
	bool held;

	spin_lock_bh(&t->lock);
	r->copying -= io->len;
	held = !refcount_dec_and_test(&io->zc.refcnt);
	io_complete(io, done);
	/* never for a read: should an skb hold it, aoe_zc_work frees it */
	if (WARN_ON_ONCE(held))
		io_zombie(io);
	spin_unlock_bh(&t->lock);
	if (!held)
		aoe_io_free(io);
}

/*
 * @io's request has ended (or is being ended) while an skb may still hold its
 * pages (or has just let go, and aoe_zc_work is queued): it waits on
 * aoe_zombies until aoe_zc_work frees it. @io is on no list. Caller holds
 * its target's lock.
 */
static void io_zombie(struct aoe_io *io)
{
	aoe_t_assert(io->t);
	spin_lock(&aoe_zombie_lock);
	io->zombie = true;
	io->z_shelf = io->t->shelf;
	io->z_slot = io->t->slot;
	if (io->write) {
		unsigned int b = aoe_zombie_bucket(io->z_shelf, io->z_slot);

		WRITE_ONCE(aoe_zombie_writes[b], aoe_zombie_writes[b] + 1);
	}
	list_add_tail(&io->node, &aoe_zombies);
	spin_unlock(&aoe_zombie_lock);
	aoe_arm_zombie_watch();
}

/*
 * Answered frames with an skb still holding their pages end when it lets go
 * (aoe_zc_work), or after aoe_deadsecs anyway (@force: the target is failed
 * or gone; it is freed after this, so nothing may stay on t->draining). The
 * pages stay referenced by that skb, so this is memory safe, but what that
 * copy writes if it is ever sent is unknown (the application may have
 * reused the pages): such a write fails (EIO), even though the target
 * answered an earlier copy. The frame becomes a zombie, freed by
 * aoe_zc_work when the skb lets go.
 */
void aoe_drain(struct aoe_target *t, bool force, struct list_head *done)
{
	unsigned long dead = aoe_policy_dead_jiffies(t);
	struct aoe_io *io, *tmp;

	list_for_each_entry_safe(io, tmp, &t->draining, node) {
		bool released = !refcount_read(&io->zc.refcnt);

		if (!force) {
			/* released: aoe_zc_work is about to end it */
			if (released ||
			    !time_after(jiffies, io->drain_since + dead))
				continue;
			net_warn_ratelimited("e%u.%u: a copy of a write to LBA %llu is still queued after %u s; the write fails (what the copy writes if it is sent is unknown)\n",
					     t->shelf, t->slot, io->lba,
					     aoe_policy_target_deadsecs(t));
		}
		if (!released)
			io->status = BLK_STS_IOERR;
		list_del(&io->node);
		io_complete(io, done);
		io_zombie(io);
	}
}

/*
 * The last copy of write frame @io has just left this host's hands (it
 * may still be on the wire, or queued at a peer): its sectors are fenced
 * for the fence time from now (fence.c), as an unanswered copy's are from
 * its send. Under t->lock.
 */
static void released_ghost(struct aoe_target *t, struct aoe_io *io)
{
	if (!io->write || !io->rq)
		return;
	aoe_fence_ghost(t, io->lba, io->len >> SECTOR_SHIFT, false, 0,
			io->zc_ifindex, ktime_get_ns(), io->rto_us);
	aoe_arm_timer(t);
}

static void zombie_unlist(struct aoe_io *io)
{
	list_del(&io->node);
	if (io->write) {
		unsigned int b = aoe_zombie_bucket(io->z_shelf, io->z_slot);

		WRITE_ONCE(aoe_zombie_writes[b], aoe_zombie_writes[b] - 1);
	}
}

/*
 * Zombie @io let go: off aoe_zombies. Until now its copy kept the writes
 * of its shelf.slot that overlap it waiting (fence.c); from now a ghost
 * does, in the target that has that address now (the zombie's, or one
 * found again since), put there before the zombie leaves the list under
 * that target's lock, so a write checked under it sees one or the other.
 * A target for that address made between the lookup and the list_del()
 * would see neither (it takes an IDENTIFY round trip to make; the copy's
 * flight is shorter): not closed.
 */
static void zombie_released(struct aoe_io *io)
{
	struct aoe_target *t = NULL;

	if (io->write)
		t = aoe_target_find(io->z_shelf, io->z_slot);
	if (t) {
		spin_lock_bh(&t->lock);
		if (!t->removed)
			released_ghost(t, io);
		spin_lock(&aoe_zombie_lock);
		zombie_unlist(io);
		spin_unlock(&aoe_zombie_lock);
		spin_unlock_bh(&t->lock);
		return;
	}
	spin_lock_bh(&aoe_zombie_lock);
	zombie_unlist(io);
	spin_unlock_bh(&aoe_zombie_lock);
}

/*
 * Frame @io, released: off aoe_zombies, or off its target's draining list
 * with its bytes accounted to its request (on @done when they were the
 * last). Each under its own lock: a zombie's target may be gone; a draining
 * frame's target is not (see the top), and it is looked at under RCU, so a
 * teardown that makes the frame a zombie meanwhile (under both locks) frees
 * the target only after this.
 */
static void zc_released(struct aoe_io *io, struct list_head *done)
{
	struct aoe_target *t;
	bool zombie;

	rcu_read_lock();
	spin_lock_bh(&aoe_zombie_lock);
	zombie = io->zombie;	/* once a zombie, always one */
	t = io->t;
	spin_unlock_bh(&aoe_zombie_lock);
	if (zombie) {
		zombie_released(io);
		goto out;
	}
	spin_lock_bh(&t->lock);
	if (io->zombie) {		/* made one since: under both locks */
		spin_unlock_bh(&t->lock);
		zombie_released(io);
		goto out;
	}
	list_del(&io->node);	/* off t->draining */
	/*
	 * Sent more than once, answered through one copy: the one let go
	 * last leaves only now. (Sent once: the answered copy itself, whose
	 * pages a device frees late; a twin of it is the duplicate
	 * detection's, fence.c.)
	 */
	if (io->tries)
		released_ghost(t, io);
	io_complete(io, done);
	spin_unlock_bh(&t->lock);
out:
	rcu_read_unlock();
}

/* Frames whose last skb let go: end their request, free them. */
static void aoe_zc_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&aoe_zc_released);
	struct aoe_io *io, *tmp;
	LIST_HEAD(done);

	llist_for_each_entry_safe(io, tmp, list, released) {
		zc_released(io, &done);
		aoe_io_free(io);
	}
	aoe_ata_end_requests(&done);
}

/*
 * Write frames whose pages a device or qdisc keeps longer than aoe_deadsecs
 * keep the module loaded: say so, and how to let go. Caller: RCU, BH off;
 * takes aoe_zombie_lock. Returns whether any zombie is left.
 */
bool aoe_warn_held(void)
{
	static DEFINE_RATELIMIT_STATE(rs, 60 * HZ, 1);
	unsigned long dead = (unsigned long)aoe_deadsecs * HZ;
	struct net_device *dev = NULL;
	struct aoe_io *io;
	const struct net *zc_net = NULL;
	unsigned int n = 0;
	bool fwd = false;
	int zc_ifindex = 0;
	struct net *net;
	bool any;

	spin_lock(&aoe_zombie_lock);
	any = !list_empty(&aoe_zombies);
	list_for_each_entry(io, &aoe_zombies, node) {
		if (!refcount_read(&io->zc.refcnt) ||
		    !time_after(jiffies, io->first_sent + dead))
			continue;
		if (!n++) {	/* the first: its device is named */
			zc_net = io->zc_net;
			zc_ifindex = io->zc_ifindex;
		}
		fwd |= io->zc_fwd;
	}
	spin_unlock(&aoe_zombie_lock);
	if (!n || !__ratelimit(&rs))
		return any;
	/* its namespace may be gone: only a live one is looked into */
	for_each_net_rcu(net)
		if (net == zc_net)
			dev = dev_get_by_index_rcu(net, zc_ifindex);
	pr_warn("%u write frame%s held by %s (its qdisc or transmit queue) for more than %d s: aoe cannot be unloaded until they are released; delete the qdisc (tc qdisc del dev %s root) or take %s down%s\n",
		n, n == 1 ? " is" : "s are", dev ? dev->name : "a removed device",
		aoe_deadsecs, dev ? dev->name : "IFACE", dev ? dev->name : "it",
		fwd ? "; sent with aoe_zerocopy_forward=Y, a device or queue it was forwarded to (another namespace) may hold them instead" : "");
	return true;
}

void aoe_ata_end_requests(struct list_head *done)
{
	struct aoe_rq *r, *tmp;

	list_for_each_entry_safe(r, tmp, done, node) {
		list_del_init(&r->node);
		blk_mq_end_request(blk_mq_rq_from_pdu(r), r->status);
	}
}

/*
 * Fail every frame in flight or waiting and every request queued or held
 * by the fence (not the answered writes on t->draining: they end when the
 * network lets go of their pages, or at their deadline).
 */
void aoe_fail_pending(struct aoe_target *t, struct list_head *done)
{
	struct aoe_io *io, *iot;
	struct aoe_rq *r, *rt;

	list_for_each_entry_safe(io, iot, &t->frames, node) {
		aoe_count_lost(t, io);
		aoe_io_finish(t, io, BLK_STS_IOERR, done);
	}
	aoe_fence_unhold_all(t);
	list_for_each_entry_safe(r, rt, &t->rq_queue, node) {
		struct request *rq = blk_mq_rq_from_pdu(r);

		list_del_init(&r->node);
		r->status = BLK_STS_IOERR;
		/* in units, as aoe_ata_timeout() checks: a flush is one */
		r->done += aoe_rq_units(rq) - r->sent;
		r->sent = blk_rq_bytes(rq);
		if (r->done >= aoe_rq_units(rq))
			list_add_tail(&r->node, done);
	}
}

void aoe_ata_fail_all(struct aoe_target *t, struct list_head *done)
{
	aoe_fail_pending(t, done);
	aoe_drain(t, true, done);
}

bool aoe_ata_timeout(struct aoe_target *t, struct request *rq)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	struct aoe_io *io, *tmp;
	struct sk_buff_head q;
	bool mine = false;

	__skb_queue_head_init(&q);
	/* a copy queued to a CPU that does not poll ends here (steer.c) */
	aoe_steer_copy_rescue();
	rcu_read_lock();
	spin_lock_bh(&t->lock);
	/*
	 * All bytes accounted: on some caller's list to be ended, or ended.
	 * All answered, the last ones being copied in: it ends with them.
	 */
	if (r->done + r->copying >= aoe_rq_units(rq))
		goto unlock;
	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (io->rq != rq)
			continue;
		aoe_count_lost(t, io);
		if (io->flush)
			aoe_io_flush_done(t, io, BLK_STS_IOERR);
		aoe_io_fence(t, io, false, 0, NULL, 0);
		io_unlink(t, io);
		/* the engine's reference; an skb may still hold the pages */
		if (refcount_dec_and_test(&io->zc.refcnt))
			aoe_io_free(io);
		else
			io_zombie(io);
	}
	/* answered, an skb still out (or just released: aoe_zc_work frees it) */
	list_for_each_entry_safe(io, tmp, &t->draining, node) {
		if (io->rq != rq)
			continue;
		list_del(&io->node);
		io_zombie(io);
	}
	list_del_init(&r->node);	/* off rq_queue if it was there */
	r->sent = blk_rq_bytes(rq);
	r->status = BLK_STS_IOERR;
	/* frames answered and being copied in: the last one ends it */
	r->done = aoe_rq_units(rq) - r->copying;
	mine = !r->copying;
	aoe_kick(t, &q);			/* its window goes to other requests */
unlock:
	aoe_steer_tx(t, &q);
	spin_unlock(&t->lock);
	aoe_ata_xmit(&q);	/* BH still off: see send.c */
	local_bh_enable();
	rcu_read_unlock();
	return mine;
}

int aoe_ata_init(void)
{
	aoe_io_cache = KMEM_CACHE(aoe_io, 0);
	if (!aoe_io_cache)
		return -ENOMEM;
	timer_setup(&aoe_zombie_timer, aoe_zombie_tick, 0);
	return 0;
}

/*
 * Every target is gone. No skb holds a frame's pages: each such frame holds
 * a module reference, so rmmod was refused until they were released (a
 * failed init sent no zero-copy frame: nothing opened a disk). Releases
 * still being handed over end before the work is flushed (see
 * aoe_zc_complete()).
 */
void aoe_ata_uninit(void)
{
	WRITE_ONCE(aoe_ata_stopping, true);
	del_timer_sync(&aoe_zombie_timer);
	synchronize_rcu();
	flush_work(&aoe_zc_work);
	aoe_zc_work_fn(&aoe_zc_work);
	if (WARN_ON(!list_empty(&aoe_zombies)))
		return;		/* freeing would be worse: leak */
	kmem_cache_destroy(aoe_io_cache);
}
