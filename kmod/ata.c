// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O engine: requests split into ATA frames, tags, per-path windows,
 * retransmission with a fresh tag on the next healthy path, deadlines.
 *
 * Everything here runs under aoe_tgt_lock. Frames are transmitted before
 * it is dropped, so a path's frames leave in the order of their sequence
 * numbers (loss detection relies on it); finished requests are ended after
 * it is dropped.
 *
 * A frame that timed out, was presumed lost or outgrew a shrunken MTU leaves
 * the wire and waits on target->resend; kick() sends waiting frames first,
 * each on the next path with window left, so retransmissions never exceed a
 * path's window (nor the target's buffer count).
 *
 * Write data goes out from the request's pages, as skb frags tracked by a
 * zero-copy ubuf_info per frame (where the device does scatter-gather and
 * the pages may be referenced; else it is copied into the frame). The
 * networking core calls back when no copy of a transmission references the
 * pages any more; it copies them itself where it must (local delivery to a
 * veth peer, devices that rewrite headers). A frame's request ends only
 * when every transmission of the frame is released, because a retransmitted,
 * delayed or duplicated copy can outlive the answer (a qdisc, a peer's
 * socket) and must not carry pages the application has reused.
 *
 * Zero-copy lifetime. io->zc.refcnt counts the engine's own reference (held
 * until the frame is answered or failed) plus one per skb that references
 * the frame's pages (the networking core takes those). Whoever drops the
 * last one owns the frame's end: the engine (under the lock) ends the
 * request at once; the release callback, which runs in any context,
 * possibly inside dev_queue_xmit() with aoe_tgt_lock held, only puts the
 * frame on aoe_zc_released and queues aoe_zc_work, which ends the request
 * (or frees a zombie) in process context under the lock. A frame that ever
 * went out zero-copy holds a module reference until it is freed, so rmmod is
 * refused ("in use") while a qdisc or a stalled device holds its pages:
 * nothing the release callback reaches, its code included, can be unloaded
 * under it (see aoe_zc_complete()).
 *
 * Cache flush and FUA (the "flush and FUA" section below): a flush request
 * (REQ_OP_FLUSH) is one FLUSH CACHE (EXT) frame without data, sent on one
 * path; a REQ_FUA write is WRITE DMA FUA EXT where the target has it (the
 * queue declares FUA only then). ARCHITECTURE.md says why one FLUSH on one
 * path covers the writes on every path.
 * Stale-write fence (fence.c): a write frame that ends while a copy of it
 * may still be in the network (sent again, presumed lost, failed) leaves a
 * ghost of its sectors; kick() holds a request that must wait for one on
 * target->fenced, the tick sends it on when the ghost is gone.
 *
 * Locking: aoe_tgt_lock for everything above. A frame on target->draining or
 * aoe_zombies stays allocated while it is on that list (only aoe_zc_work
 * frees a frame the callback released, and it takes it off the list under
 * the lock first). aoe_zc_released is a lock-free llist.
 */
#include <linux/blk-mq.h>
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <net/net_namespace.h>

#include "aoe_trace.h"
#include "ata.h"
#include "chardev.h"
#include "compat.h"
#include "fence.h"
#include "netif.h"
#include "netlink.h"
#include "params.h"
#include "policy.h"
#include "target.h"

#define AOE_TICK_MS		10
#define AOE_DUPTHRESH		3	/* later frames answered: presume lost */
/* a path refused by a reservation (AoE error 6) is avoided this long */
#define AOE_RESV_AVOID_MS	2000
/*
 * A tick this late means this machine did not run (a VM's vCPU descheduled,
 * a long irq-off section): answers that arrived meanwhile still wait in the
 * receive backlog, which runs after the timer softirq. No timeouts then.
 */
#define AOE_TICK_LATE_MS	20

struct aoe_ident {
	struct completion done;
	int error;
	u8 data[AOE_SECTOR_SIZE];
};

/* One ATA frame in flight. */
struct aoe_io {
	struct list_head node;		/* target->frames, ->draining, aoe_zombies */
	struct list_head rnode;		/* on target->resend while waiting */
	struct llist_node released;	/* on aoe_zc_released */
	struct ubuf_info zc;		/* refcnt: engine's 1 + skbs holding pages */
	unsigned long drain_since;	/* jiffies: answered, copies still out */
	int zc_ifindex;			/* device of the last zero-copy skb */
	const struct net *zc_net;	/* its namespace: compared, no reference */
	bool modref;			/* holds a module reference */
	bool zombie;			/* request ended, skbs still hold pages */
	blk_status_t status;
	u32 tag;
	u32 prev_tag;			/* tag of the previous transmission */
	struct aoe_tag tag_ent;		/* both in target->tags (tag.h) */
	struct aoe_tag prev_ent;
	int prev_ifindex;		/* and where it went */
	const struct net *prev_net;	/* compared only, never dereferenced */
	u8 prev_mac[ETH_ALEN];
	u32 seq;			/* path send sequence, for loss detection */
	ktime_t prev_sent;		/* when the previous transmission went */
	struct aoe_path *path;		/* where it was last sent */
	struct request *rq;		/* NULL for IDENTIFY */
	struct aoe_ident *ident;
	u32 off;			/* byte offset in the request */
	u32 len;			/* data bytes */
	u64 lba;
	bool write;
	bool flush;			/* FLUSH CACHE (EXT): no data */
	bool fua;			/* WRITE DMA FUA EXT */
	u8 tries;
	bool refused;			/* the current transmission was refused */
	u32 rto_us;			/* largest RTO it was sent with */
	bool rto_fired;			/* waiting because its timer expired */
	bool fenced;			/* io_fence() done */
	bool prev_rto;			/* the previous transmission timed out */
	u32 epoch;			/* path window epoch when sent */
	ktime_t sent;
	unsigned long first_sent;	/* jiffies, first transmission */
};

/* the frame's command, as the tracepoints show it */
static char io_cmd(const struct aoe_io *io)
{
	if (io->flush)
		return 'F';
	if (io->ident)
		return 'I';
	return io->write ? 'W' : 'R';
}

static struct kmem_cache *aoe_io_cache;
static struct timer_list aoe_ata_timer;
static bool aoe_ata_stopping;
/* frames whose request ended while a transmission was still out */
static LIST_HEAD(aoe_zombies);
/* frames whose last skb let go of their pages, for aoe_zc_work */
static LLIST_HEAD(aoe_zc_released);
static void aoe_zc_work_fn(struct work_struct *work);
static DECLARE_WORK(aoe_zc_work, aoe_zc_work_fn);

/*
 * An skb released a frame's pages. Any context (hard or soft irq, process
 * context, inside dev_queue_xmit() with aoe_tgt_lock held): no lock taken,
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

typedef void (*aoe_seg_fn)(struct bio_vec *bv, u32 from, void *arg);

/*
 * Call @fn for each page segment of bytes [off, off + len) of @rq. The walk
 * starts at the request's first segment and stops after the range.
 */
static void rq_range(struct request *rq, u32 off, u32 len, aoe_seg_fn fn,
		     void *arg)
{
	struct req_iterator iter;
	struct bio_vec bv;
	u32 pos = 0, end = off + len;

	rq_for_each_segment(bv, rq, iter) {
		/* a copy: the iterator advances by the loop variable's length */
		struct bio_vec seg = bv;
		u32 s = pos, e = pos + bv.bv_len;

		pos = e;
		if (s >= end)
			break;
		if (e <= off)
			continue;
		if (s < off) {
			seg.bv_offset += off - s;
			seg.bv_len -= off - s;
			s = off;
		}
		if (e > end)
			seg.bv_len -= e - end;
		fn(&seg, s - off, arg);
	}
}

/* Zero-copy is possible if every page may be referenced and frags suffice. */
static void seg_zc_count(struct bio_vec *bv, u32 from, void *arg)
{
	int *n = arg;

	if (*n >= 0)
		*n = sendpage_ok(bv->bv_page) ? *n + 1 : -1;
}

static void seg_frag(struct bio_vec *bv, u32 from, void *arg)
{
	struct sk_buff *skb = arg;

	get_page(bv->bv_page);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, bv->bv_page,
			   bv->bv_offset, bv->bv_len);
	skb->len += bv->bv_len;
	skb->data_len += bv->bv_len;
	skb->truesize += bv->bv_len;
}

static void seg_copy_out(struct bio_vec *bv, u32 from, void *arg)
{
	memcpy_from_bvec((u8 *)arg + from, bv);
}

struct copy_in {
	const struct sk_buff *skb;
	int base;
};

static void seg_copy_in(struct bio_vec *bv, u32 from, void *arg)
{
	struct copy_in *ci = arg;
	void *dst = bvec_kmap_local(bv);

	if (skb_copy_bits(ci->skb, ci->base + from, dst, bv->bv_len))
		memset(dst, 0, bv->bv_len);	/* length was checked: unreachable */
	kunmap_local(dst);
}

static struct aoe_io *io_alloc(gfp_t gfp)
{
	struct aoe_io *io = kmem_cache_zalloc(aoe_io_cache, gfp);

	if (!io)
		return NULL;
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

static void io_free(struct aoe_io *io)
{
	bool modref = io->modref;

	kmem_cache_free(aoe_io_cache, io);
	if (modref)
		module_put(THIS_MODULE);
}

/* ---------------------------------------------------------------------------
 * Cache flush and FUA.
 *
 * A flush request carries no data: one frame of length 0 whose answer ends
 * it. blk-mq's flush machinery hands it to us only after every write it
 * covers has completed, i.e. was answered by the target (on whichever path)
 * and its pages were released, so one FLUSH on any path covers them: the
 * target is one device behind all of its paths (ARCHITECTURE.md, aoe(4)).
 * It is sent on the next path with window left, like any frame.
 *
 * Its timer is aoe_flush_rto(), seconds, not the path's RTO: a real disk
 * takes that long to write its cache, and resending a FLUSH every RTO would
 * only queue more flushes there. Its timeouts do not back the path off, do
 * not shrink its window, do not count towards taking the path down, and a
 * flush is never presumed lost because later frames were answered first.
 * Its answer gives no RTT sample. The deadline (aoe_deadsecs) applies.
 */

/* A request in the engine's units: its bytes; a flush (no data) is one. */
static u32 rq_units(struct request *rq)
{
	return blk_rq_bytes(rq) ?: 1;
}

/* What the new frame @io of its request is: a flush, a FUA write. */
static void io_cache_setup(struct aoe_target *t, struct aoe_io *io)
{
	io->flush = req_op(io->rq) == REQ_OP_FLUSH;
	if (io->flush) {
		io->len = 0;
		io->lba = 0;
	}
	/*
	 * REQ_FUA comes only while the queue declares FUA, which it does only
	 * for a target with WRITE DMA FUA EXT (target.c). A write queued
	 * before a revalidate took FUA away still goes out as one: the block
	 * layer sends no flush after it, so a plain write could be acknowledged
	 * from a volatile cache; a target without FUA aborts it and the write
	 * fails instead.
	 */
	io->fua = io->write && (io->rq->cmd_flags & REQ_FUA);
}

static u8 io_cache_cmd(const struct aoe_target *t, const struct aoe_io *io)
{
	return io->flush ? aoe_identify_flush_cmd(&t->id) : ATA_CMD_WRITE_FUA48;
}

/* The first transmission of @io, on @p: flushes and FUA writes counted. */
static void io_cache_sent(struct aoe_target *t, struct aoe_io *io,
			  struct aoe_path *p)
{
	if (io->flush) {
		p->cnt.flushes_sent++;
		t->cnt.flushes_sent++;
	} else if (io->fua) {
		p->cnt.fua_writes++;
		t->cnt.fua_writes++;
	}
}

/* Flush frame @io ends with @st (on the path it last went out on). */
static void io_flush_done(struct aoe_target *t, struct aoe_io *io,
			  blk_status_t st)
{
	if (st) {
		t->cnt.flushes_failed++;
		if (io->path)
			io->path->cnt.flushes_failed++;
	} else {
		t->cnt.flushes_answered++;
		if (io->path)
			io->path->cnt.flushes_answered++;
	}
}

/*
 * The target answered a FLUSH with an error: the flush request fails. An
 * abort (ABRT) means it does not do FLUSH: target.c remembers that and
 * stops declaring the write cache.
 */
static void io_flush_error(struct aoe_target *t, const struct aoe_frame *f,
			   bool aoe_error)
{
	if (!aoe_error && (f->ata.status & AOE_ATA_STATUS_ERR) &&
	    (f->ata.err & AOE_ATA_ERR_ABRT)) {
		aoe_target_flush_refused(t);
		return;
	}
	net_err_ratelimited("e%u.%u: FLUSH CACHE failed (AoE error %u, status 0x%02x, error 0x%02x)\n",
			    t->shelf, t->slot, aoe_error ? f->error : 0,
			    f->ata.status, f->ata.err);
}

/* ------------------------------------------------------------------------- */

static void arm_timer(void);

static bool io_waiting(const struct aoe_io *io)
{
	return !list_empty(&io->rnode);
}

/* Frames in flight on a path count in its window and in its port's. */
static void path_out_inc(struct aoe_path *p)
{
	p->outstanding++;
	p->port->outstanding++;
}

static void path_out_dec(struct aoe_path *p)
{
	p->outstanding--;
	p->port->outstanding--;
}

/* Take in-flight @io off its path's window: it waits to be sent again. */
static void io_requeue(struct aoe_target *t, struct aoe_io *io)
{
	path_out_dec(io->path);
	list_add_tail(&io->rnode, &t->resend);
}

static void count_lost(struct aoe_target *t, struct aoe_io *io)
{
	if (io->path)
		io->path->cnt.lost++;
	t->cnt.lost++;
}

static bool path_usable(const struct aoe_path *p)
{
	return p->state == AOE_PATH_STATE_UP && p->payload;
}

static struct aoe_path *next_path(struct aoe_target *t, struct aoe_path *p)
{
	if (!p || list_is_last(&p->node, &t->paths))
		return list_first_entry(&t->paths, struct aoe_path, node);
	return list_next_entry(p, node);
}

/* Window left on @p, and buffers left at its target port (all its paths). */
static bool path_room(const struct aoe_path *p)
{
	return p->outstanding < p->win.cwnd &&
	       aoe_port_room(p->port->outstanding, p->port->bufcnt);
}

/*
 * Reservations (AoE error 6). A target reserved by another initiator
 * refuses frames from source MACs not in its reserve list; a path whose
 * local interface's MAC is in it still works. A refused path is avoided
 * for AOE_RESV_AVOID_MS while a path that was not refused is usable, and
 * then tried again (the reservation may be gone).
 */
static bool path_refused(const struct aoe_path *p)
{
	return p->resv_until && time_before(jiffies, p->resv_until);
}

/* Is there a usable path that the reservation did not refuse? */
static bool path_unrefused(const struct aoe_target *t)
{
	const struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (path_usable(p) && !path_refused(p))
			return true;
	return false;
}

static bool avoid_refused(const struct aoe_target *t)
{
	return t->resv_until && time_before(jiffies, t->resv_until) &&
	       path_unrefused(t);
}

/* Round-robin over usable paths; with @room only those with window left. */
static struct aoe_path *pick_path(struct aoe_target *t, bool room)
{
	bool avoid = avoid_refused(t);
	struct aoe_path *p = t->rr;
	unsigned int i;

	if (list_empty(&t->paths))
		return NULL;
	for (i = 0; i < t->npaths; i++) {
		p = next_path(t, p);
		if (!path_usable(p) || (avoid && path_refused(p)))
			continue;
		if (room && !path_room(p))
			continue;
		t->rr = p;
		return p;
	}
	return NULL;
}

static bool io_zerocopy(struct aoe_io *io, struct net_device *dev)
{
	int n = 0;

	if (!io->write || !READ_ONCE(aoe_zerocopy) ||
	    !(dev->features & NETIF_F_SG))
		return false;
	rq_range(io->rq, io->off, io->len, seg_zc_count, &n);
	if (n <= 0 || n > MAX_SKB_FRAGS)
		return false;
	/* the module stays while any skb may call back (fails: unloading) */
	if (!io->modref)
		io->modref = try_module_get(THIS_MODULE);
	return io->modref;
}

static struct sk_buff *io_skb(struct aoe_target *t, struct aoe_io *io,
			      struct net_device *dev)
{
	bool zc = io_zerocopy(io, dev);
	unsigned int linear = AOE_ATA_HDR_LEN +
			      (io->write && !zc ? io->len : 0);
	struct sk_buff *skb;
	u8 cmd, *hdr;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + max_t(unsigned int, linear, ETH_ZLEN) +
			dev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	hdr = skb_put(skb, linear);	/* every byte is written below */

	if (io->ident)
		cmd = ATA_CMD_IDENTIFY;
	else if (io->flush || io->fua)
		cmd = io_cache_cmd(t, io);
	else if (io->write)
		cmd = t->id.lba48 ? ATA_CMD_WRITE48 : ATA_CMD_WRITE28;
	else
		cmd = t->id.lba48 ? ATA_CMD_READ48 : ATA_CMD_READ28;
	aoe_encode_ata(hdr, io->path->mac, dev->dev_addr, t->shelf, t->slot,
		       io->tag, cmd, io->write,
		       io->flush ? cmd == ATA_CMD_FLUSH48 :
				   !io->ident && t->id.lba48,
		       io->lba, io->ident ? 1 : io->len / AOE_SECTOR_SIZE);
	if (zc) {
		rq_range(io->rq, io->off, io->len, seg_frag, skb);
		skb_zcopy_set(skb, &io->zc, NULL);
		io->zc_ifindex = dev->ifindex;
		io->zc_net = dev_net(dev);
	} else if (io->write) {
		rq_range(io->rq, io->off, io->len, seg_copy_out,
			 hdr + AOE_ATA_HDR_LEN);
	}
	if (skb->len < ETH_ZLEN)
		skb_put_zero(skb, ETH_ZLEN - skb->len);
	skb->dev = dev;
	skb->protocol = htons(ETH_P_AOE);
	return skb;
}

/*
 * A fresh tag for the next transmission of @io (tag.h). The current tag
 * becomes the previous one when its transmission's path is still known
 * (@keep_prev), whose answer is then accepted too; a tag pushed out is
 * retired.
 */
static void io_new_tag(struct aoe_target *t, struct aoe_io *io, bool keep_prev)
{
	if (aoe_tag_in_table(&io->tag_ent)) {
		if (keep_prev) {
			aoe_tag_retire(&t->tags, &io->prev_ent);
			aoe_tag_del(&io->tag_ent);
			aoe_tag_add(&t->tags, &io->prev_ent, io->prev_tag,
				    AOE_TAG_PREV);
		} else {
			aoe_tag_retire(&t->tags, &io->tag_ent);
		}
	}
	io->tag = aoe_tag_new(&t->tags);
	aoe_tag_add(&t->tags, &io->tag_ent, io->tag, AOE_TAG_CUR);
}

/* (Re)transmit @io on @p with a fresh tag. Caller: lock + RCU. */
static int io_send(struct aoe_target *t, struct aoe_io *io, struct aoe_path *p,
		   struct sk_buff_head *q)
{
	bool keep_prev = io->path;
	struct net_device *dev;
	struct sk_buff *skb;

	if (!io->sent)
		io_cache_sent(t, io, p);
	if (io->refused) {
		/* answered: no copy; the previous one (if any) stays that */
		keep_prev = false;
		io->refused = false;
	} else if (io->path) {
		io->prev_sent = io->sent;
		io->prev_tag = io->tag;
		io->prev_ifindex = io->path->ifindex;
		io->prev_net = read_pnet(&io->path->net);
		ether_addr_copy(io->prev_mac, io->path->mac);
		io->prev_rto = io->rto_fired;
	}
	io->rto_fired = false;
	io->path = p;
	io->sent = ktime_get();
	io->rto_us = max(io->rto_us, aoe_rtt_rto(&p->rtt));
	io->epoch = p->win.epoch;
	io->seq = ++p->tx_seq;
	io_new_tag(t, io, keep_prev);
	path_out_inc(p);
	dev = dev_get_by_index_rcu(read_pnet(&p->net), p->ifindex);
	if (!dev || !netif_running(dev))
		return -ENETDOWN;	/* stays outstanding: the timer retries */
	skb = io_skb(t, io, dev);
	if (!skb)
		return -ENOMEM;
	p->cnt.frames_sent++;
	t->cnt.frames_sent++;
	__skb_queue_tail(q, skb);
	trace_aoe_frame_sent(t->shelf, t->slot, p->ifindex, p->mac, io->tag,
			     io->lba, io->len / AOE_SECTOR_SIZE, io_cmd(io),
			     io->tries);
	return 0;
}

static void arm_timer(void)
{
	if (!aoe_ata_stopping && !timer_pending(&aoe_ata_timer))
		mod_timer(&aoe_ata_timer,
			  jiffies + msecs_to_jiffies(AOE_TICK_MS));
}

static bool io_split(struct aoe_target *t, struct aoe_io *io, u32 payload);
static void io_complete(struct aoe_io *io, struct list_head *done);

/*
 * Send a waiting frame on @np: again with a fresh tag, or for the first time.
 * False when it must wait: too big for @np and no memory to split it (sent
 * whole, @np's link would drop it and the frame would time out there).
 */
static bool resend(struct aoe_target *t, struct aoe_io *io, struct aoe_path *np,
		   u32 payload, struct sk_buff_head *q)
{
	static const u8 none[ETH_ALEN];
	const u8 *old_mac = io->path ? io->path->mac : none;
	int old_ifindex = io->path ? io->path->ifindex : 0;
	u32 old_tag = io->tag;

	if (io->rq && io->len > payload && !io_split(t, io, payload))
		return false;	/* still waiting; the timer tries again */
	list_del_init(&io->rnode);
	if (!io->sent) {		/* the tail of a split frame */
		io_send(t, io, np, q);
		return true;
	}
	/* a refused transmission was answered: it is no copy in the network */
	if (!io->refused)
		io->tries++;
	np->cnt.retransmits++;
	t->cnt.retransmits++;
	if (io_send(t, io, np, q))
		return true;	/* nothing went out: the timer retries */
	trace_aoe_frame_retransmit(t->shelf, t->slot, old_ifindex, old_mac,
				   old_tag, np->ifindex, np->mac, io->tag,
				   io->lba, io->len / AOE_SECTOR_SIZE,
				   io_cmd(io), io->tries);
	aoe_chardev_err("retransmit e%u.%u oldtag=%08x@%08lx newtag=%08x s=%pm d=%pm nout=%u\n",
			t->shelf, t->slot, old_tag, jiffies, io->tag,
			np->mac, old_mac, t->outstanding);
	return true;
}

/*
 * Send what waits while windows allow: frames to resend first (oldest first,
 * each on the path after the one it was lost on, split when that path's
 * payload is smaller), then queued requests carved into frames of the picked
 * path's payload. The local payload is only "some path is usable".
 */
static void kick(struct aoe_target *t, struct sk_buff_head *q)
{
	u32 payload = aoe_target_payload(t);
	bool stuck = false;

	while (!list_empty(&t->resend) && payload) {
		struct aoe_io *io = list_first_entry(&t->resend, struct aoe_io,
						     rnode);
		struct aoe_path *np;

		if (io->path)
			t->rr = io->path;
		np = pick_path(t, true);
		if (!np)
			break;
		if (!resend(t, io, np, np->payload, q)) {
			stuck = true;	/* no memory: none for new frames either */
			break;
		}
	}
	while (!stuck && !list_empty(&t->rq_queue) &&
	       t->state == AOE_TARGET_STATE_UP &&
	       payload && t->outstanding < aoe_maxout) {
		struct aoe_rq *r = list_first_entry(&t->rq_queue, struct aoe_rq,
						    node);
		struct request *rq = blk_mq_rq_from_pdu(r);
		struct aoe_path *p;
		struct aoe_io *io;

		if (!r->sent && aoe_fence_hold(t, rq))
			continue;	/* on t->fenced now */
		p = pick_path(t, true);
		if (!p)
			break;
		io = io_alloc(GFP_ATOMIC);
		if (!io)
			break;		/* the timer tries again */
		io->rq = rq;
		io->off = r->sent;
		/* each path carries frames sized to its own MTU */
		io->len = min(p->payload, blk_rq_bytes(rq) - r->sent);
		io->lba = blk_rq_pos(rq) + (r->sent >> SECTOR_SHIFT);
		io->write = rq_data_dir(rq) == WRITE;
		io_cache_setup(t, io);
		io->first_sent = jiffies;
		r->sent += io->len;
		if (r->sent >= blk_rq_bytes(rq))
			list_del_init(&r->node);
		list_add_tail(&io->node, &t->frames);
		t->outstanding++;
		io_send(t, io, p, q);
	}
	/* also while frames or requests wait: retries and their deadline */
	if (t->outstanding || !list_empty(&t->rq_queue) ||
	    !list_empty(&t->fenced))
		arm_timer();
}

void aoe_ata_kick(struct aoe_target *t)
{
	struct sk_buff_head q;

	lockdep_assert_held(&aoe_tgt_lock);
	__skb_queue_head_init(&q);
	kick(t, &q);
	aoe_ata_xmit(&q);
}

static bool tag_retired(struct aoe_target *t, u32 tag)
{
	return aoe_tag_find(&t->tags, tag, AOE_TAG_OLD);
}

/* Take @io off the target's lists and windows; answers to it are late now. */
static void io_unlink(struct aoe_target *t, struct aoe_io *io)
{
	aoe_tag_retire(&t->tags, &io->tag_ent);
	aoe_tag_retire(&t->tags, &io->prev_ent);
	list_del(&io->node);
	if (io_waiting(io))
		list_del(&io->rnode);
	else
		path_out_dec(io->path);
	t->outstanding--;
}

/*
 * Write frame @io ends: answered through the transmission with @tag on @p
 * at @now (@answered), or not. Copies of it that were not answered may
 * still be in the network: fence their sectors (fence.c). Before
 * io_unlink().
 */
static void io_fence(struct aoe_target *t, struct aoe_io *io, bool answered,
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

static void io_finish(struct aoe_target *t, struct aoe_io *io,
		      blk_status_t st, struct list_head *done)
{
	io_fence(t, io, false, 0, NULL, 0);	/* not answered: every copy */
	io_unlink(t, io);
	if (st)
		trace_aoe_frame_failed(t->shelf, t->slot, io->lba,
				       io->len / AOE_SECTOR_SIZE, io_cmd(io),
				       io->tries, (__force u8)st,
				       jiffies_to_msecs(jiffies -
							io->first_sent));
	if (io->ident) {
		/* -EBADE for AOE_BLK_STS_RESERVED */
		io->ident->error = blk_status_to_errno(st);
		complete(&io->ident->done);
		io_free(io);
		return;
	}
	if (io->flush)
		io_flush_done(t, io, st);
	io->status = st;
	if (!refcount_dec_and_test(&io->zc.refcnt)) {
		/*
		 * An skb still holds its pages: the request ends when the last
		 * one lets go (aoe_zc_work), or at drain()'s deadline.
		 */
		io->drain_since = jiffies;
		list_add_tail(&io->node, &t->draining);
		arm_timer();
		return;
	}
	io_complete(io, done);
	io_free(io);
}

/* Account @io's bytes to its request; the request ends when all are in. */
static void io_complete(struct aoe_io *io, struct list_head *done)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(io->rq);

	if (io->status)
		r->status = io->status;
	r->done += io->flush ? 1 : io->len;
	if (r->done >= rq_units(io->rq))
		list_add_tail(&r->node, done);
}

/*
 * @io's request has ended (or is being ended) while an skb may still hold its
 * pages (or has just let go, and aoe_zc_work is queued): it waits on
 * aoe_zombies until aoe_zc_work frees it. @io is on no list.
 */
static void io_zombie(struct aoe_io *io)
{
	io->zombie = true;
	list_add_tail(&io->node, &aoe_zombies);
	arm_timer();
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
static void drain(struct aoe_target *t, bool force, struct list_head *done)
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

/* Frames whose last skb let go: end their request, free them. */
static void aoe_zc_work_fn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&aoe_zc_released);
	struct aoe_io *io, *tmp;
	LIST_HEAD(done);

	if (!list)
		return;
	spin_lock_bh(&aoe_tgt_lock);
	llist_for_each_entry_safe(io, tmp, list, released) {
		/* on its target's draining list, or a zombie */
		list_del(&io->node);
		if (!io->zombie)
			io_complete(io, &done);
		io_free(io);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_ata_end_requests(&done);
}

/*
 * Write frames whose pages a device or qdisc keeps longer than aoe_deadsecs
 * keep the module loaded: say so, and how to let go. Caller: lock + RCU.
 */
static void warn_held(void)
{
	static DEFINE_RATELIMIT_STATE(rs, 60 * HZ, 1);
	unsigned long dead = (unsigned long)aoe_deadsecs * HZ;
	struct net_device *dev = NULL;
	struct aoe_io *io, *old = NULL;
	unsigned int n = 0;
	struct net *net;

	list_for_each_entry(io, &aoe_zombies, node) {
		if (!refcount_read(&io->zc.refcnt) ||
		    !time_after(jiffies, io->first_sent + dead))
			continue;
		if (!old)
			old = io;
		n++;
	}
	if (!old || !__ratelimit(&rs))
		return;
	/* its namespace may be gone: only a live one is looked into */
	for_each_net_rcu(net)
		if (net == old->zc_net)
			dev = dev_get_by_index_rcu(net, old->zc_ifindex);
	pr_warn("%u write frame%s held by %s (its qdisc or transmit queue) for more than %d s: aoe cannot be unloaded until they are released; delete the qdisc (tc qdisc del dev %s root) or take %s down\n",
		n, n == 1 ? " is" : "s are", dev ? dev->name : "a removed device",
		aoe_deadsecs, dev ? dev->name : "IFACE", dev ? dev->name : "it");
}

void aoe_ata_end_requests(struct list_head *done)
{
	struct aoe_rq *r, *tmp;

	list_for_each_entry_safe(r, tmp, done, node) {
		list_del_init(&r->node);
		blk_mq_end_request(blk_mq_rq_from_pdu(r), r->status);
	}
}

void aoe_ata_xmit(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		aoe_netif_xmit(skb);
}

/*
 * Fail every frame in flight or waiting and every request queued or held
 * by the fence (not the answered writes on t->draining: they end when the
 * network lets go of their pages, or at their deadline).
 */
static void fail_pending(struct aoe_target *t, struct list_head *done)
{
	struct aoe_io *io, *iot;
	struct aoe_rq *r, *rt;

	list_for_each_entry_safe(io, iot, &t->frames, node) {
		count_lost(t, io);
		io_finish(t, io, BLK_STS_IOERR, done);
	}
	aoe_fence_unhold_all(t);
	list_for_each_entry_safe(r, rt, &t->rq_queue, node) {
		struct request *rq = blk_mq_rq_from_pdu(r);

		list_del_init(&r->node);
		r->status = BLK_STS_IOERR;
		/* in units, as aoe_ata_timeout() checks: a flush is one */
		r->done += rq_units(rq) - r->sent;
		r->sent = blk_rq_bytes(rq);
		if (r->done >= rq_units(rq))
			list_add_tail(&r->node, done);
	}
}

void aoe_ata_fail_all(struct aoe_target *t, struct list_head *done)
{
	fail_pending(t, done);
	drain(t, true, done);
}

/*
 * The MTU shrank under a frame: its tail becomes separate frames that wait
 * on target->resend (first in line, in LBA order), never sent yet. False
 * when a piece found no memory: @io is still bigger than @payload (the
 * pieces made so far stand).
 */
static bool io_split(struct aoe_target *t, struct aoe_io *io, u32 payload)
{
	static unsigned int test_allocs;
	u32 len0 = io->len;

	while (io->len > payload) {
		struct aoe_io *tail = NULL;
		u32 n = io->len - payload;

		if (!(aoe_test_faults & AOE_TEST_SPLIT_NOMEM) ||
		    (++test_allocs & 1))
			tail = io_alloc(GFP_ATOMIC);

		if (!tail)
			break;
		n = n > payload ? payload : n;
		tail->rq = io->rq;
		tail->write = io->write;
		tail->fua = io->fua;
		tail->first_sent = io->first_sent;
		tail->len = n;
		tail->off = io->off + io->len - n;
		tail->lba = io->lba + ((io->len - n) >> SECTOR_SHIFT);
		io->len -= n;
		list_add_tail(&tail->node, &t->frames);
		list_add(&tail->rnode, &t->resend);
		t->outstanding++;
	}
	/*
	 * A copy of the whole frame went out before: it may still land on the
	 * tails' sectors, which neither the tails' answers nor this frame's
	 * (shorter now) fence.
	 */
	if (io->write && io->sent && io->len < len0)
		aoe_fence_ghost(t, io->lba + (io->len >> SECTOR_SHIFT),
				(len0 - io->len) >> SECTOR_SHIFT, false, 0,
				io->path ? io->path->ifindex : 0,
				ktime_to_ns(io->sent), io->rto_us);
	return io->len <= payload;
}

/* @io is lost: shrink its path's window; it waits to be sent again. */
static void io_lost(struct aoe_target *t, struct aoe_io *io, bool timeout)
{
	if (timeout)
		aoe_cwnd_loss(&io->path->win, io->epoch);
	else
		aoe_cwnd_overtaken(&io->path->win, io->epoch);
	io_requeue(t, io);
}

/*
 * The retransmission timer of @io expired. Frames that time out together
 * are one event (aoe_timeouts_add()): one RTO backoff, one step towards
 * giving up on the path, one window decrease (aoe_cwnd_loss(), per epoch).
 * A path stops carrying I/O after AOE_PATH_FAIL_EVENTS events in a row,
 * if another path works (answers, and its last answer was no refusal:
 * a path the target refuses with AoE error 6 carries nothing, so downing
 * the one path a reservation permits would fail all I/O): when all time
 * out, the target is down or overloaded and the deadline decides.
 */
static void retransmit(struct aoe_target *t, struct aoe_io *io)
{
	struct aoe_path *p = io->path;
	struct aoe_path *other;

	if (trace_aoe_frame_timeout_enabled())
		trace_aoe_frame_timeout(t->shelf, t->slot, p->ifindex, p->mac,
					io->tag, io->lba,
					io->len / AOE_SECTOR_SIZE, io_cmd(io),
					ktime_us_delta(ktime_get(), io->sent),
					io->flush ?
					aoe_flush_rto(aoe_rtt_rto(&p->rtt),
						      io->tries) :
					aoe_rtt_rto(&p->rtt));
	p->cnt.timeouts++;
	t->cnt.timeouts++;
	if (io->flush) {
		/* a slow disk, not a lossy path: no backoff, window or event */
		io_requeue(t, io);
		return;
	}
	io->rto_fired = true;
	io_lost(t, io, true);
	if (!aoe_timeouts_add(&p->tmo, io->seq, p->tx_seq))
		return;
	aoe_rtt_backoff(&p->rtt);
	p->cnt.backoffs++;
	t->cnt.backoffs++;
	if (p->tmo.in_row < AOE_PATH_FAIL_EVENTS ||
	    p->state != AOE_PATH_STATE_UP)
		return;
	list_for_each_entry(other, &t->paths, node) {
		if (other != p && path_usable(other) && !other->tmo.in_row &&
		    !other->refusing) {
			aoe_path_set_state(t, p, AOE_PATH_STATE_DOWN);
			aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
			net_warn_ratelimited("e%u.%u: path %s -> %pM stops carrying I/O after %u timeout events\n",
					     t->shelf, t->slot, p->ifname,
					     p->mac, p->tmo.in_row);
			return;
		}
	}
}

/*
 * Targets mostly answer a path's frames in order: when frames sent after @io
 * on its path have been answered and @io has waited a reordering window longer
 * than the last of them took (RACK, RFC 8985), @io was lost: resend it now,
 * not at RTO. Called on each answer and from the timer tick, which catches
 * the frames that were still inside the window at the last answer.
 */
static void fast_retransmit(struct aoe_target *t, struct aoe_path *p,
			    ktime_t now)
{
	s64 wait_us = (s64)p->acked_rtt_us + aoe_rtt_reo_wnd(&p->rtt);
	struct aoe_io *io;

	list_for_each_entry(io, &t->frames, node) {
		if (io->path != p || io_waiting(io) || io->flush || io->ident ||
		    (s32)(p->acked_seq - io->seq) < AOE_DUPTHRESH ||
		    ktime_us_delta(now, io->sent) < wait_us)
			continue;
		p->cnt.lost++;
		t->cnt.lost++;
		aoe_rtt_lost(&p->rtt);
		io_lost(t, io, false);
	}
}

/*
 * The timer of in-flight @io runs from its transmission or from the last
 * answer on its path, whichever is later (RFC 6298 5.3): a target answers a
 * path's frames in order, so while it answers, the later frames are queued
 * there, not lost (and a loss among them is caught by fast_retransmit()).
 */
static bool rto_expired(const struct aoe_io *io, ktime_t now)
{
	const struct aoe_path *p = io->path;
	ktime_t from = ktime_after(p->last_ack, io->sent) ? p->last_ack : io->sent;

	if (io->flush)
		return ktime_us_delta(now, io->sent) >=
		       aoe_flush_rto(aoe_rtt_rto(&p->rtt), io->tries);
	return ktime_us_delta(now, from) >= aoe_rtt_rto(&p->rtt);
}

/*
 * An IDENTIFY checks the device behind its one path: resent there only, a
 * few times (its waiter gives up after that), with no effect on the path's
 * window or health.
 */
static void ident_resend(struct aoe_target *t, struct aoe_io *io,
			 struct sk_buff_head *q)
{
	struct aoe_path *p = io->path;

	if (io->tries >= AOE_IDENT_RESENDS)
		return;
	io->tries++;
	p->cnt.retransmits++;
	t->cnt.retransmits++;
	path_out_dec(p);
	io_send(t, io, p, q);
}

static void target_dead(struct aoe_target *t, struct list_head *done)
{
	aoe_ata_fail_all(t, done);
	aoe_target_set_state(t, AOE_TARGET_STATE_DOWN);
	pr_warn("e%u.%u: target down: no answer for %u s, I/O failed\n",
		t->shelf, t->slot, aoe_policy_target_deadsecs(t));
}

/*
 * @io (I/O, never IDENTIFY: see aoe_ata_rx()) was answered with AoE error 6
 * through the transmission with @tag on @p (NULL: that path is gone). The
 * path is refused. A refusal is an answer: that transmission is no copy in the
 * network any more (its tag is retired, it leaves the copy count), and
 * the other one, if still out, keeps its tag: its answer counts. A refused
 * current transmission goes out again on another path that was not
 * refused, with a fresh tag, unless no such path is left: then it fails.
 * No count of refusals decides (a frame kept off the permitted path by
 * its window, or lost there, meets the other paths again when their
 * AOE_RESV_AVOID_MS end): a refused path is avoided for that long, which
 * bounds the refusals to one per path per AOE_RESV_AVOID_MS, and the
 * deadline (aoe_deadsecs) bounds the frame. Returns true when @io goes on.
 */
static bool io_reserved(struct aoe_target *t, struct aoe_io *io,
			struct aoe_path *p, u32 tag)
{
	if (p) {
		p->resv_until = (jiffies + msecs_to_jiffies(AOE_RESV_AVOID_MS)) | 1;
		t->resv_until = p->resv_until;
	}
	if (tag != io->tag) {
		/* the previous transmission's: the current one decides */
		aoe_tag_retire(&t->tags, &io->prev_ent);
		if (io->tries)
			io->tries--;
		return true;
	}
	if (!path_unrefused(t))
		return false;
	aoe_tag_retire(&t->tags, &io->tag_ent);
	io->refused = true;
	if (!io_waiting(io))
		io_requeue(t, io);
	return true;
}

static void log_reserved(const struct aoe_target *t)
{
	static DEFINE_RATELIMIT_STATE(rs, 10 * HZ, 1);

	if (__ratelimit(&rs))
		pr_warn("e%u.%u: reserved by another initiator: I/O fails until it releases (aoe-reserve e%u.%u)\n",
			t->shelf, t->slot, t->shelf, t->slot);
}

static void aoe_ata_tick(struct timer_list *timer)
{
	bool late = time_after(jiffies, timer->expires +
			       msecs_to_jiffies(AOE_TICK_LATE_MS)) ||
		    (aoe_test_faults & AOE_TEST_LATE_TICKS);
	bool deadlines = !(aoe_test_faults & AOE_TEST_NO_DEADLINE);
	struct sk_buff_head q;
	struct aoe_target *t;
	bool again = false;
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		unsigned long dead = aoe_policy_dead_jiffies(t);
		ktime_t now = ktime_get();
		struct aoe_io *io, *tmp;
		struct aoe_path *p;

		/*
		 * Not when late: the answers may be in the backlog. Only these
		 * decisions wait for a punctual tick; deadlines never do.
		 */
		if (!late)
			list_for_each_entry(p, &t->paths, node)
				fast_retransmit(t, p, now);
		list_for_each_entry_safe(io, tmp, &t->frames, node) {
			if (deadlines &&
			    time_after(jiffies, io->first_sent + dead)) {
				if (time_after(jiffies, t->last_rx + dead)) {
					target_dead(t, &done);
					break;
				}
				/* the target answers, but never this frame */
				count_lost(t, io);
				io_finish(t, io, BLK_STS_IOERR, &done);
				if (!t->lost_since)
					t->lost_since = jiffies | 1;
				continue;
			}
			if (late || io_waiting(io) || !rto_expired(io, now))
				continue;
			if (io->ident)
				ident_resend(t, io, &q);
			else
				retransmit(t, io);
		}
		if (t->fence.n || !list_empty(&t->fenced))
			aoe_fence_release(t, ktime_to_ns(now), deadlines,
					  &done);
		kick(t, &q);
		/* fast-fail: I/O and no usable path for too long */
		if (deadlines && t->state == AOE_TARGET_STATE_UP &&
		    aoe_policy_target_tick(t, !list_empty(&t->frames) ||
					   !list_empty(&t->rq_queue) ||
					   !list_empty(&t->fenced)))
			fail_pending(t, &done);
		drain(t, false, &done);
		if (t->outstanding || !list_empty(&t->rq_queue) ||
		    !list_empty(&t->draining) || !list_empty(&t->fenced))
			again = true;
		/* requests waiting with no path to carry them: a deadline too */
		if (list_empty(&t->rq_queue) || pick_path(t, false)) {
			t->stalled_since = 0;
		} else if (!t->stalled_since) {
			t->stalled_since = jiffies | 1;
		} else if (deadlines &&
			   time_after(jiffies, t->stalled_since + dead)) {
			t->stalled_since = 0;
			target_dead(t, &done);
		}
		/*
		 * A frame failed its deadline while the target still answered
		 * others: if it answers nothing more for a deadline, it is
		 * dead, even when no frame is left to find that (the failed
		 * one was a reader's only request).
		 */
		if (t->lost_since) {
			if (t->state != AOE_TARGET_STATE_UP ||
			    time_after(t->last_rx, t->lost_since)) {
				t->lost_since = 0;
			} else if (deadlines &&
				   time_after(jiffies, t->last_rx + dead)) {
				t->lost_since = 0;
				target_dead(t, &done);
			} else {
				again = true;
			}
		}
	}
	aoe_ata_xmit(&q);
	if (!list_empty(&aoe_zombies)) {
		warn_held();
		again = true;
	}
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	if (again)
		arm_timer();
}

/* The frame whose current transmission has @tag. O(1) (tag.h). */
static struct aoe_io *find_tag(struct aoe_target *t, u32 tag)
{
	struct aoe_tag *e = aoe_tag_find(&t->tags, tag, AOE_TAG_CUR);
	struct aoe_io *io;

	if (!e)
		return NULL;
	io = container_of(e, struct aoe_io, tag_ent);
	return io->path ? io : NULL;
}

/* The retransmitted frame whose previous transmission had @tag. O(1). */
static struct aoe_io *find_prev_tag(struct aoe_target *t, u32 tag)
{
	struct aoe_tag *e = aoe_tag_find(&t->tags, tag, AOE_TAG_PREV);
	struct aoe_io *io;

	if (!e)
		return NULL;
	io = container_of(e, struct aoe_io, prev_ent);
	return io->tries && io->path ? io : NULL;
}

/*
 * Is an answer to @io from path @p taken? An IDENTIFY checks its own path's
 * device (it is never sent on another path). Anything else only from a path
 * that carries I/O (verified by IDENTIFY and up): a candidate may be
 * another device, a refused path is one (target.c), and a path that is down
 * is checked again before it carries I/O.
 */
static bool answer_allowed(const struct aoe_io *io, const struct aoe_path *p)
{
	return io->ident || p->state == AOE_PATH_STATE_UP;
}

/*
 * Path @p stops carrying I/O: the tags of its transmissions are retired, so
 * a late answer from it is LATE, never data (frames get fresh tags when they
 * are sent again).
 */
static void path_retire_tags(struct aoe_target *t, const struct aoe_path *p)
{
	struct aoe_io *io;

	list_for_each_entry(io, &t->frames, node) {
		if (io->ident)
			continue;
		if (io->path == p)
			aoe_tag_retire(&t->tags, &io->tag_ent);
		if (io->prev_ifindex == p->ifindex &&
		    ether_addr_equal(io->prev_mac, p->mac))
			aoe_tag_retire(&t->tags, &io->prev_ent);
	}
}

/*
 * Path @p carried the transmission of @io with tag @tag that was just
 * answered: its clock, window and health (not those of the path @io went
 * out on since).
 */
static void path_answered(struct aoe_path *p, struct aoe_io *io, u32 tag,
			  ktime_t now)
{
	bool current_tx = io->tag == tag;

	/* Karn: unambiguous samples only; a flush's time is the disk's */
	if (current_tx && !io->tries && !io_waiting(io) && !io->flush)
		aoe_rtt_sample(&p->rtt, ktime_us_delta(now, io->sent));
	else
		aoe_rtt_answered(&p->rtt);
	if (current_tx && !io->flush && (s32)(io->seq - p->acked_seq) > 0) {
		p->acked_seq = io->seq;
		p->acked_rtt_us = ktime_us_delta(now, io->sent);
	}
	aoe_cwnd_ack(&p->win);
	p->last_ack = now;
	p->last_rx = jiffies;
	aoe_timeouts_answered(&p->tmo);
	p->refusing = false;
	p->cnt.frames_received++;
}

void aoe_ata_rx(struct net_device *dev, const struct aoe_frame *f,
		bool aoe_error, struct sk_buff *skb)
{
	const int data_off = AOE_ATA_HDR_LEN - ETH_HLEN;
	enum aoe_drop_reason drop = 0;
	bool refused = aoe_error && f->error == AOE_ERR_RESERVED;
	struct aoe_target *t;
	struct aoe_path *p;
	struct sk_buff_head q;
	struct aoe_io *io;
	blk_status_t st = BLK_STS_OK;
	ktime_t now = ktime_get();
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (!t) {
		drop = AOE_DROP_NO_TARGET;
		goto unlock;
	}
	io = find_tag(t, f->tag);
	if (io) {
		p = io->path;
		if (p->ifindex != dev->ifindex ||
		    !net_eq(read_pnet(&p->net), dev_net(dev)) ||
		    !ether_addr_equal(p->mac, f->src) ||
		    !answer_allowed(io, p)) {
			drop = AOE_DROP_WRONG_PATH;
			goto unlock;
		}
		/* answered after it was presumed lost, before it was resent */
		if (io->flush || refused)
			;	/* the disk's delay, or no I/O: nothing to learn */
		else if (io_waiting(io) && io->rto_fired)
			aoe_rtt_spurious(&p->rtt, ktime_us_delta(now, io->sent));
		else if (io_waiting(io))
			aoe_rtt_reordered(&p->rtt);
	} else {
		/* the answer to an earlier transmission is as good */
		io = find_prev_tag(t, f->tag);
		if (!io || io->prev_ifindex != dev->ifindex ||
		    io->prev_net != dev_net(dev) ||
		    !ether_addr_equal(io->prev_mac, f->src)) {
			drop = tag_retired(t, f->tag) ? AOE_DROP_LATE :
							AOE_DROP_NO_TAG;
			if (drop == AOE_DROP_LATE)
				aoe_fence_late(t, aoe_path_find(t, dev_net(dev),
								dev->ifindex,
								f->src),
					       f->tag, ktime_to_ns(now));
			if (drop == AOE_DROP_NO_TAG)
				aoe_chardev_err("unexpected rsp e%u.%u tag=%08x@%08lx s=%pm d=%pm\n",
						t->shelf, t->slot, f->tag,
						jiffies, f->src, f->dst);
			goto unlock;
		}
		/*
		 * The path that carried the answered transmission gets the
		 * credit, not the one the frame went out on since (which may
		 * be slower, or dead). Gone, or not verified now: the answer
		 * is not taken (answer_allowed()).
		 */
		p = aoe_path_find(t, io->prev_net, io->prev_ifindex,
				  io->prev_mac);
		if (!p || !answer_allowed(io, p)) {
			drop = AOE_DROP_WRONG_PATH;
			goto unlock;
		}
		/*
		 * A stall or reordering, not a loss: learn it. Presumed lost
		 * by its timer, the RTO floor rises; by the order of answers,
		 * the reordering window widens.
		 */
		if (!p || io->flush || refused)
			;	/* nothing to learn */
		else if (io->prev_rto)
			aoe_rtt_spurious(&p->rtt,
					 ktime_us_delta(now, io->prev_sent));
		else
			aoe_rtt_reordered(&p->rtt);
	}
	if (!aoe_error && !(f->ata.status & AOE_ATA_STATUS_BAD) &&
	    !io->write && f->ata.datalen < io->len) {
		drop = AOE_DROP_BAD_LENGTH;	/* the timer resends it */
		goto unlock;
	}

	t->last_rx = jiffies;
	t->cnt.frames_received++;
	trace_aoe_frame_answered(t->shelf, t->slot, dev->ifindex, f->src, f->tag,
				 io->lba, io->len / AOE_SECTOR_SIZE,
				 io_cmd(io),
				 ktime_us_delta(now, f->tag == io->tag ?
						io->sent : io->prev_sent),
				 f->ata.status, aoe_error ? f->error : 0);
	/*
	 * A refusal says the target is there, nothing about the path's
	 * health: no RTT sample, no window growth, no reset of its timeouts.
	 */
	if (p && !refused)
		path_answered(p, io, f->tag, now);

	if (refused) {
		if (p) {
			p->refusing = true;
			p->cnt.frames_received++;
			p->cnt.reserve_conflicts++;
		}
		t->cnt.reserve_conflicts++;
		if (io->ident) {
			/*
			 * An IDENTIFY checks the device behind its one path:
			 * refused there, that check fails (-EBADE), never
			 * answered over another path for it.
			 */
			if (p)
				p->resv_until = (jiffies +
						 msecs_to_jiffies(AOE_RESV_AVOID_MS)) | 1;
			st = AOE_BLK_STS_RESERVED;
		} else if (io_reserved(t, io, p, f->tag)) {
			kick(t, &q);
			goto unlock;
		} else {
			st = AOE_BLK_STS_RESERVED;
			log_reserved(t);
		}
	} else if (aoe_error || (f->ata.status & AOE_ATA_STATUS_BAD)) {
		if (p)
			p->cnt.ata_errors++;
		t->cnt.ata_errors++;
		st = BLK_STS_IOERR;
		if (io->flush)
			io_flush_error(t, f, aoe_error);
		else
			net_err_ratelimited("e%u.%u: ATA error (AoE error %u, status 0x%02x, error 0x%02x) at LBA %llu\n",
					    t->shelf, t->slot,
					    aoe_error ? f->error : 0,
					    f->ata.status, f->ata.err, io->lba);
	} else if (io->flush) {
		/* no data: the target's cache is on its media */
	} else if (io->ident) {
		if (skb_copy_bits(skb, data_off, io->ident->data,
				  AOE_SECTOR_SIZE))
			st = BLK_STS_IOERR;
	} else if (io->write) {
		if (p)
			p->cnt.bytes_written += io->len;
		t->cnt.bytes_written += io->len;
	} else {
		struct copy_in ci = { .skb = skb, .base = data_off };

		rq_range(io->rq, io->off, io->len, seg_copy_in, &ci);
		if (p)
			p->cnt.bytes_read += io->len;
		t->cnt.bytes_read += io->len;
	}
	io_fence(t, io, true, f->tag, p, now);
	io_finish(t, io, st, &done);
	if (p)
		fast_retransmit(t, p, now);
	kick(t, &q);
unlock:
	aoe_ata_xmit(&q);
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	if (drop)
		aoe_drop(drop, dev, f);
}

bool aoe_ata_submit(struct aoe_target *t, struct request *rq)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	struct sk_buff_head q;

	INIT_LIST_HEAD(&r->node);
	r->sent = 0;
	r->done = 0;
	r->status = BLK_STS_OK;
	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	if (t->state != AOE_TARGET_STATE_UP || t->removed ||
	    aoe_policy_refuse_io(t)) {
		spin_unlock_bh(&aoe_tgt_lock);
		rcu_read_unlock();
		return false;
	}
	/* a flush is sent even after an abort: the target answers it */
	if (req_op(rq) == REQ_OP_FLUSH)
		;
	else if (rq_data_dir(rq) == WRITE)
		t->cnt.write_reqs++;
	else
		t->cnt.read_reqs++;
	list_add_tail(&r->node, &t->rq_queue);
	kick(t, &q);
	aoe_ata_xmit(&q);
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	return true;
}

bool aoe_ata_timeout(struct aoe_target *t, struct request *rq)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	struct aoe_io *io, *tmp;
	struct sk_buff_head q;
	bool mine = false;

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	/* all bytes accounted: on some caller's list to be ended, or ended */
	if (r->done >= rq_units(rq))
		goto unlock;
	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (io->rq != rq)
			continue;
		count_lost(t, io);
		if (io->flush)
			io_flush_done(t, io, BLK_STS_IOERR);
		io_fence(t, io, false, 0, NULL, 0);
		io_unlink(t, io);
		/* the engine's reference; an skb may still hold the pages */
		if (refcount_dec_and_test(&io->zc.refcnt))
			io_free(io);
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
	r->done = rq_units(rq);
	r->status = BLK_STS_IOERR;
	mine = true;
	kick(t, &q);			/* its window goes to other requests */
unlock:
	aoe_ata_xmit(&q);
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	return mine;
}

static struct aoe_io *find_ident(struct aoe_target *t, struct aoe_ident *id)
{
	struct aoe_io *io;

	list_for_each_entry(io, &t->frames, node)
		if (io->ident == id)
			return io;
	return NULL;
}

struct aoe_ident *aoe_ata_identify_start(struct aoe_target *t,
					 struct aoe_path *p)
{
	struct aoe_ident *id;
	struct sk_buff_head q;
	struct aoe_io *io;

	lockdep_assert_held(&aoe_tgt_lock);
	if (t->removed || !p)
		return ERR_PTR(-ENODEV);
	id = kzalloc(sizeof(*id), GFP_ATOMIC);
	io = io_alloc(GFP_ATOMIC);
	if (!id || !io) {
		kfree(id);
		if (io)
			kmem_cache_free(aoe_io_cache, io);
		return ERR_PTR(-ENOMEM);
	}
	init_completion(&id->done);
	io->ident = id;
	io->len = AOE_SECTOR_SIZE;
	io->first_sent = jiffies;
	__skb_queue_head_init(&q);
	list_add_tail(&io->node, &t->frames);
	t->outstanding++;
	io_send(t, io, p, &q);
	arm_timer();
	aoe_ata_xmit(&q);
	return id;
}

int aoe_ata_identify_wait(struct aoe_target *t, struct aoe_ident *id,
			  unsigned long timeout, struct aoe_identity *out)
{
	struct aoe_io *io;
	LIST_HEAD(done);
	int ret;

	if (!wait_for_completion_timeout(&id->done, timeout)) {
		spin_lock_bh(&aoe_tgt_lock);
		io = find_ident(t, id);
		if (io)
			io_finish(t, io, BLK_STS_TIMEOUT, &done);
		spin_unlock_bh(&aoe_tgt_lock);
		/* completed by io_finish() above or by a late answer */
		wait_for_completion(&id->done);
		ret = -ETIMEDOUT;
	} else {
		ret = id->error;
	}
	/* into the caller's copy: t->id is published by the caller */
	if (!ret)
		ret = aoe_parse_identify(id->data, out);
	return ret;
}

void aoe_ata_identify_free(struct aoe_ident *id)
{
	kfree(id);
}

void aoe_ata_path_gone(struct aoe_target *t, struct aoe_path *p,
		       struct sk_buff_head *q, struct list_head *done,
		       bool removed)
{
	struct aoe_io *io, *tmp;
	struct aoe_path *np;

	aoe_path_set_state(t, p, AOE_PATH_STATE_DOWN);
	if (t->rr == p)
		t->rr = NULL;
	path_retire_tags(t, p);
	np = pick_path(t, false);
	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (io->path != p)
			continue;
		if (io->ident) {
			/* it checks this path's device: never another path */
			io_finish(t, io, BLK_STS_IOERR, done);
			continue;
		}
		/*
		 * a link that went down may come back before the deadline; a
		 * removed one too, in another network namespace (moved): its
		 * frames wait for a path (aoe_deadsecs bounds them)
		 */
		if (!np && !removed)
			continue;
		if (!io_waiting(io))
			io_requeue(t, io);
		if (removed)
			io->path = NULL;	/* @p is about to be freed */
	}
	kick(t, q);
}

void aoe_ata_path_refused(struct aoe_target *t, struct aoe_path *p,
			  struct list_head *done)
{
	struct aoe_io *io, *tmp;

	if (t->rr == p)
		t->rr = NULL;
	path_retire_tags(t, p);
	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (io->path != p)
			continue;
		if (io->ident) {
			io_finish(t, io, BLK_STS_IOERR, done);
			continue;
		}
		if (!io_waiting(io))
			io_requeue(t, io);
		io->path = NULL;	/* @p is about to be freed */
	}
}

void aoe_ata_payload_shrunk(struct aoe_target *t, struct sk_buff_head *q)
{
	struct aoe_io *io;

	/*
	 * frames too big for their path's new MTU are dropped on the way:
	 * resend now (split to the payload of the path they go out on)
	 */
	list_for_each_entry(io, &t->frames, node)
		if (io->rq && !io_waiting(io) && io->path &&
		    io->len > io->path->payload)
			io_requeue(t, io);
	kick(t, q);
}

int aoe_ata_init(void)
{
	aoe_io_cache = KMEM_CACHE(aoe_io, 0);
	if (!aoe_io_cache)
		return -ENOMEM;
	timer_setup(&aoe_ata_timer, aoe_ata_tick, 0);
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
	aoe_ata_stopping = true;
	del_timer_sync(&aoe_ata_timer);
	synchronize_rcu();
	flush_work(&aoe_zc_work);
	aoe_zc_work_fn(&aoe_zc_work);
	if (WARN_ON(!list_empty(&aoe_zombies)))
		return;		/* freeing would be worse: leak */
	kmem_cache_destroy(aoe_io_cache);
}
