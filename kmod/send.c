// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O engine's sending side: the choice of path (round-robin over usable
 * paths with window left; a path a reservation refused is avoided), the skb
 * of a transmission (write data as zero-copy frags of the request's pages,
 * io.c, or copied), a fresh tag for each transmission, the resend queue,
 * splitting a frame for a path with a smaller payload, the submission of
 * requests, and what a path that goes away, is refused or shrinks does to
 * its frames.
 *
 * A frame that timed out, was presumed lost or outgrew a shrunken MTU leaves
 * the wire and waits on target->resend; aoe_kick() sends waiting frames
 * first, each on the next path with window left, so retransmissions never
 * exceed a path's window (nor the target's buffer count). Requests are
 * carved into new frames after that; one that must wait for a ghost of the
 * stale-write fence is held on target->fenced (io.c).
 *
 * Locking: t->lock for everything here, and RCU for what transmits
 * (devices are looked up by index); aoe_ata_submit() takes both itself
 * (the target is the disk's: it outlives the request).
 * Transmissions are queued on the caller's sk_buff_head and sent by
 * aoe_ata_xmit() inside the same RCU section: on the data path (submission,
 * answers, the tick, the blk-mq timeout) after the lock is dropped but
 * before bottom halves are enabled again (spin_unlock(), aoe_ata_xmit(),
 * local_bh_enable()), so no CPU waits for the lock while another runs a
 * driver's transmit; under the lock where the caller holds it
 * (aoe_ata_kick(), IDENTIFY, target.c). An skb needs nothing the lock
 * guards: it holds no device reference (RCU keeps the device), its data is
 * copied or its pages are held by the frame's zero-copy count (io.c).
 * Bottom halves stay off so that nothing runs on this CPU between building
 * a frame and handing it to the device: no softirq (an answer processed
 * there would send later frames first and could get these presumed lost
 * before they left) and no preemption (a copied write sent long after its
 * io->sent would outlive the stale-write fence, whose times count from
 * there). Frames built on two CPUs can still interleave on the wire by the
 * time a transmit takes, as they can across a NIC's TX queues: loss
 * detection does not rely on their order (timers.c). With aoe_tx_spread
 * the data path's frames may instead be queued, under the lock, to the
 * target's transmit CPU (aoe_steer_tx(), steer.c: the fence allows for
 * the wait there).
 */
#include <linux/blk-mq.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "aoe_trace.h"
#include "ata.h"
#include "chardev.h"
#include "fence.h"
#include "io.h"
#include "netif.h"
#include "params.h"
#include "policy.h"
#include "steer.h"
#include "target.h"

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
bool aoe_path_unrefused(const struct aoe_target *t)
{
	const struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (aoe_path_usable(p) && !path_refused(p))
			return true;
	return false;
}

static bool avoid_refused(const struct aoe_target *t)
{
	return t->resv_until && time_before(jiffies, t->resv_until) &&
	       aoe_path_unrefused(t);
}

/* Round-robin over usable paths; with @room only those with window left. */
struct aoe_path *aoe_pick_path(struct aoe_target *t, bool room)
{
	bool avoid = avoid_refused(t);
	struct aoe_path *p = t->rr;
	unsigned int i;

	if (list_empty(&t->paths))
		return NULL;
	for (i = 0; i < t->npaths; i++) {
		p = next_path(t, p);
		if (!aoe_path_usable(p) || (avoid && path_refused(p)))
			continue;
		if (room && !path_room(p))
			continue;
		t->rr = p;
		return p;
	}
	return NULL;
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

static bool io_zerocopy(struct aoe_io *io, struct net_device *dev)
{
	int n = 0;

	if (!io->write || !READ_ONCE(aoe_zerocopy) ||
	    !(dev->features & NETIF_F_SG))
		return false;
	aoe_io_range(io, seg_zc_count, &n);
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
		cmd = aoe_io_cache_cmd(t, io);
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
		aoe_io_range(io, seg_frag, skb);
		skb_zcopy_set(skb, &io->zc, NULL);
		/* io.c: forwarded without a copy (aoe_zerocopy_forward) */
		if (READ_ONCE(aoe_zerocopy_forward)) {
			skb_shinfo(skb)->flags |= SKBFL_DONT_ORPHAN;
			io->zc_fwd = true;
		}
		io->zc_ifindex = dev->ifindex;
		io->zc_net = dev_net(dev);
	} else if (io->write) {
		u32 n = aoe_io_range(io, seg_copy_out, hdr + AOE_ATA_HDR_LEN);

		/* unreachable (warned): no stale kernel memory on the wire */
		memset(hdr + AOE_ATA_HDR_LEN + n, 0, io->len - n);
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
			aoe_tag_del(&t->tags, &io->tag_ent);
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
int aoe_io_send(struct aoe_target *t, struct aoe_io *io, struct aoe_path *p,
		struct sk_buff_head *q)
{
	bool keep_prev = io->path;
	struct net_device *dev;
	struct sk_buff *skb;

	if (!io->sent)
		aoe_io_cache_sent(t, io, p);
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
	aoe_arm_rto(t, io);	/* also if it does not leave: it is retried */
	io->epoch = p->win.epoch;
	io->seq = ++p->tx_seq;
	io_new_tag(t, io, keep_prev);
	aoe_path_out_inc(p);
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
			     io->lba, io->len / AOE_SECTOR_SIZE, aoe_io_cmd(io),
			     io->tries);
	return 0;
}

/* Take in-flight @io off its path's window: it waits to be sent again. */
void aoe_io_requeue(struct aoe_target *t, struct aoe_io *io)
{
	aoe_path_out_dec(io->path);
	list_add_tail(&io->rnode, &t->resend);
}

/*
 * The MTU shrank under a frame: its tail becomes separate frames that wait
 * on target->resend (first in line, in LBA order), never sent yet. False
 * when a piece found no memory: @io is still bigger than @payload (the
 * pieces made so far stand).
 */
static bool io_split(struct aoe_target *t, struct aoe_io *io, u32 payload)
{
	static atomic_t test_allocs;
	u32 len0 = io->len;

	while (io->len > payload) {
		struct aoe_io *tail = NULL;
		u32 n = io->len - payload;

		if (!(aoe_test_faults & AOE_TEST_SPLIT_NOMEM) ||
		    (atomic_inc_return(&test_allocs) & 1))
			tail = aoe_io_alloc(t, GFP_ATOMIC);

		if (!tail)
			break;
		n = n > payload ? payload : n;
		tail->rq = io->rq;
		tail->write = io->write;
		tail->fua = io->fua;
		tail->first_sent = io->first_sent;
		tail->len = n;
		tail->off = io->off + io->len - n;
		tail->pos = io->pos;
		aoe_rq_pos_advance(&tail->pos, tail->off - io->off);
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
		aoe_io_send(t, io, np, q);
		return true;
	}
	/* a refused transmission was answered: it is no copy in the network */
	if (!io->refused)
		io->tries++;
	np->cnt.retransmits++;
	t->cnt.retransmits++;
	if (aoe_io_send(t, io, np, q))
		return true;	/* nothing went out: the timer retries */
	trace_aoe_frame_retransmit(t->shelf, t->slot, old_ifindex, old_mac,
				   old_tag, np->ifindex, np->mac, io->tag,
				   io->lba, io->len / AOE_SECTOR_SIZE,
				   aoe_io_cmd(io), io->tries);
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
void aoe_kick(struct aoe_target *t, struct sk_buff_head *q)
{
	u32 payload = aoe_target_payload(t);
	bool stuck = false;

	while (!list_empty(&t->resend) && payload) {
		struct aoe_io *io = list_first_entry(&t->resend, struct aoe_io,
						     rnode);
		struct aoe_path *np;

		if (io->path)
			t->rr = io->path;
		np = aoe_pick_path(t, true);
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
		p = aoe_pick_path(t, true);
		if (!p)
			break;
		io = aoe_io_alloc(t, GFP_ATOMIC);
		if (!io)
			break;		/* the timer tries again */
		io->rq = rq;
		io->off = r->sent;
		io->pos = r->next;
		/* each path carries frames sized to its own MTU */
		io->len = min(p->payload, blk_rq_bytes(rq) - r->sent);
		io->lba = blk_rq_pos(rq) + (r->sent >> SECTOR_SHIFT);
		io->write = rq_data_dir(rq) == WRITE;
		aoe_io_cache_setup(t, io);
		io->first_sent = jiffies;
		WRITE_ONCE(r->moved, jiffies | 1);
		WRITE_ONCE(r->sent, r->sent + io->len);
		/* the request carved whole, or the next frame's start */
		if (r->sent >= blk_rq_bytes(rq))
			list_del_init(&r->node);
		else
			aoe_rq_pos_advance(&r->next, io->len);
		list_add_tail(&io->node, &t->frames);
		t->outstanding++;
		aoe_io_send(t, io, p, q);
	}
	/*
	 * Frames or requests wait: retries and their deadline. Frames in
	 * flight armed theirs when sent (aoe_io_send()).
	 */
	if (!list_empty(&t->resend) || !list_empty(&t->rq_queue) ||
	    !list_empty(&t->fenced))
		aoe_arm_timer(t);
}

void aoe_ata_kick(struct aoe_target *t)
{
	struct sk_buff_head q;

	aoe_t_assert(t);
	__skb_queue_head_init(&q);
	aoe_kick(t, &q);
	aoe_ata_xmit_locked(t, &q);
}

bool aoe_ata_submit(struct aoe_target *t, struct request *rq)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	struct sk_buff_head q;
	bool idle;

	INIT_LIST_HEAD(&r->node);
	r->sent = 0;
	aoe_rq_pos_start(&r->next, rq);
	r->moved = 0;
	r->done = 0;
	r->copying = 0;
	r->status = BLK_STS_OK;
	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&t->lock);
	if (t->state != AOE_TARGET_STATE_UP || t->removed ||
	    aoe_policy_refuse_io(t)) {
		spin_unlock_bh(&t->lock);
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
	/*
	 * One frame to a target with nothing out (nor queued to be sent):
	 * sent from here, at once (a queue depth of 1). More frames go by
	 * the target's transmit CPU: frames sent after them from there must
	 * not overtake them while this CPU sends.
	 */
	idle = !t->outstanding;
	aoe_kick(t, &q);
	if (!idle || skb_queue_len(&q) > 1)
		aoe_steer_tx(t, &q);
	spin_unlock(&t->lock);
	aoe_ata_xmit(&q);	/* BH still off: see send.c */
	local_bh_enable();
	rcu_read_unlock();
	return true;
}

void aoe_ata_xmit(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		aoe_netif_xmit(skb);
	aoe_steer_flush();
}

void aoe_ata_xmit_locked(struct aoe_target *t, struct sk_buff_head *q)
{
	aoe_t_assert(t);
	aoe_steer_tx(t, q);
	aoe_ata_xmit(q);
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
 * The frames last sent on @p: an IDENTIFY fails (it checks this path's
 * device: never another path); the others wait on target->resend for
 * another path, unless @stay (they wait for @p's link to come back), and
 * forget @p when @forget (it is about to be freed).
 */
static void frames_leave(struct aoe_target *t, struct aoe_path *p,
			 struct list_head *done, bool stay, bool forget)
{
	struct aoe_io *io, *tmp;

	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (io->path != p)
			continue;
		if (io->ident) {
			aoe_io_finish(t, io, BLK_STS_IOERR, done);
			continue;
		}
		if (stay)
			continue;
		if (!aoe_io_waiting(io))
			aoe_io_requeue(t, io);
		if (forget)
			io->path = NULL;
	}
}

void aoe_ata_path_gone(struct aoe_target *t, struct aoe_path *p,
		       struct sk_buff_head *q, struct list_head *done,
		       bool removed)
{
	struct aoe_path *np;

	aoe_path_set_state(t, p, AOE_PATH_STATE_DOWN);
	if (t->rr == p)
		t->rr = NULL;
	path_retire_tags(t, p);
	np = aoe_pick_path(t, false);
	/*
	 * a link that went down may come back before the deadline; a
	 * removed one too, in another network namespace (moved): its
	 * frames wait for a path (aoe_deadsecs bounds them)
	 */
	frames_leave(t, p, done, !np && !removed, removed);
	aoe_kick(t, q);
	/* frames left to wait for @p: the deadline and fast-fail's clock */
	if (t->outstanding)
		aoe_arm_timer(t);
}

void aoe_ata_path_refused(struct aoe_target *t, struct aoe_path *p,
			  struct list_head *done)
{
	if (t->rr == p)
		t->rr = NULL;
	path_retire_tags(t, p);
	frames_leave(t, p, done, false, true);
}

void aoe_ata_payload_shrunk(struct aoe_target *t, struct sk_buff_head *q)
{
	struct aoe_io *io;

	/*
	 * frames too big for their path's new MTU are dropped on the way:
	 * resend now (split to the payload of the path they go out on)
	 */
	list_for_each_entry(io, &t->frames, node)
		if (io->rq && !aoe_io_waiting(io) && io->path &&
		    io->len > io->path->payload)
			aoe_io_requeue(t, io);
	aoe_kick(t, q);
}
