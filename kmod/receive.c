// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O engine's answers: aoe_ata_rx() takes an ATA response from netif.c,
 * finds its frame by tag (the current transmission's, or the previous
 * one's: either answer is as good; tag.h), takes it only from the path that
 * carried that transmission and only while that path may answer
 * (answer_allowed()), gives that path the credit (RTT, window, health),
 * copies read data into the request's pages or the IDENTIFY buffer, and
 * ends the frame (io.c) after its stale-write fence hook. AoE error 6 is a
 * reservation refusing the path (io_reserved(): the frame goes out again on
 * a path that was not refused, or fails).
 *
 * An answer that arrives on another CPU than its target's (t->rx_cpu) is
 * queued there first (aoe_rx_spread, steer.c) and comes back here from that
 * CPU's softirq. With aoe_copy_spread, a claimed read frame's data is
 * copied, and its requests ended, by another CPU's softirq instead
 * (aoe_steer_copy(), which then owns the skb): everything else about the
 * answer (its tag, RTT, loss detection, the frames sent in its place) is
 * done here first, in the order answers arrive.
 *
 * Locking: aoe_ata_rx() runs in the receive path (softirq) and takes RCU
 * and the target's lock itself (the target found under RCU, never
 * aoe_tgt_lock: answers to different targets share no lock); what it sends
 * again (aoe_kick()) leaves after the lock is dropped, before bottom halves
 * are enabled again; a claimed read frame's data is copied and the requests
 * it finished are ended after. A dropped answer is counted on its target
 * and path under the lock, in the module's total (an atomic) after.
 * Everything else here runs under t->lock, called by aoe_ata_rx().
 *
 * A claimed frame is off the target's lists and windows: netlink's
 * outstanding count and the answered tracepoint (fired before its data is
 * in) no longer see it.
 */
#include <linux/blk-mq.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "aoe_trace.h"
#include "ata.h"
#include "chardev.h"
#include "compat.h"
#include "fence.h"
#include "io.h"
#include "steer.h"
#include "target.h"

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

void aoe_ata_copy_in(struct aoe_target *t, struct aoe_io *io,
		     const struct sk_buff *skb, int base, struct list_head *done)
{
	struct copy_in ci = { .skb = skb, .base = base };

	aoe_io_range(io, seg_copy_in, &ci);
	aoe_io_claim_end(t, io, done);
}

/* The retired entry of @tag (tag.h), NULL when it is none. */
static struct aoe_tag *tag_retired(struct aoe_target *t, u32 tag)
{
	return aoe_tag_find(&t->tags, tag, AOE_TAG_OLD);
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
 * Path @p carried the transmission of @io with tag @tag that was just
 * answered: its clock, window and health (not those of the path @io went
 * out on since). The RTO of @p's frames in flight runs from this answer
 * now (RFC 6298 5.3), with the RTO as it is after the answer: one that
 * ended a backoff (here or in aoe_rtt_spurious() before) moves it earlier
 * than the tick was armed for, so the tick is moved to it (a flush's, which
 * runs from its send, is found there; the arm is one compare otherwise).
 */
static void path_answered(struct aoe_target *t, struct aoe_path *p,
			  struct aoe_io *io, u32 tag, ktime_t now)
{
	bool current_tx = io->tag == tag;

	/* Karn: unambiguous samples only; a flush's time is the disk's */
	if (current_tx && !io->tries && !aoe_io_waiting(io) && !io->flush)
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
	if (p->outstanding)
		aoe_arm_timer_at(t, ktime_to_ns(now) +
				 (u64)aoe_rtt_rto(&p->rtt) * NSEC_PER_USEC);
}

/*
 * @io (I/O, never IDENTIFY: see aoe_ata_rx()) was answered with AoE error 6
 * through the transmission with @tag on @p. The
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
		aoe_tag_retire_answered(&t->tags, &io->prev_ent);
		if (io->tries)
			io->tries--;
		/* a flush's RTO counts its tries: it may expire earlier */
		if (io->flush && !aoe_io_waiting(io))
			aoe_arm_rto(t, io);
		return true;
	}
	if (!aoe_path_unrefused(t))
		return false;
	aoe_tag_retire_answered(&t->tags, &io->tag_ent);
	io->refused = true;
	if (!aoe_io_waiting(io))
		aoe_io_requeue(t, io);
	return true;
}

static void log_reserved(const struct aoe_target *t)
{
	static DEFINE_RATELIMIT_STATE(rs, 10 * HZ, 1);

	if (__ratelimit(&rs))
		pr_warn("e%u.%u: reserved by another initiator: I/O fails until it releases (aoe-reserve e%u.%u)\n",
			t->shelf, t->slot, t->shelf, t->slot);
}

bool aoe_ata_rx(struct net_device *dev, const struct aoe_frame *f,
		bool aoe_error, struct sk_buff *skb, bool may_steer)
{
	const int data_off = AOE_ATA_HDR_LEN - ETH_HLEN;
	enum aoe_drop_reason drop = 0;
	bool refused = aoe_error && f->error == AOE_ERR_RESERVED;
	struct aoe_target *t;
	struct aoe_path *p;
	struct sk_buff_head q;
	struct aoe_io *io, *claimed = NULL;
	blk_status_t st = BLK_STS_OK;
	bool handed = false;
	ktime_t now = ktime_get();
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	t = aoe_target_find(f->shelf, f->slot);
	if (!t) {
		rcu_read_unlock();
		aoe_drop(AOE_DROP_NO_TARGET, NULL, NULL);
		return false;
	}
	if (may_steer) {
		bool full;

		if (aoe_steer(t, skb, &full)) {
			rcu_read_unlock();
			return true;
		}
		if (full) {
			rcu_read_unlock();
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return false;
		}
	}
	spin_lock_bh(&t->lock);
	if (t->removed) {	/* unlinked after the lookup */
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
		else if (aoe_io_waiting(io) && io->rto_fired)
			aoe_rtt_spurious(&p->rtt, ktime_us_delta(now, io->sent));
		else if (aoe_io_waiting(io))
			aoe_rtt_reordered(&p->rtt);
	} else {
		/* the answer to an earlier transmission is as good */
		io = find_prev_tag(t, f->tag);
		if (!io || io->prev_ifindex != dev->ifindex ||
		    io->prev_net != dev_net(dev) ||
		    !ether_addr_equal(io->prev_mac, f->src)) {
			struct aoe_tag *old = tag_retired(t, f->tag);

			drop = old ? AOE_DROP_LATE : AOE_DROP_NO_TAG;
			if (old) {
				bool owed = old->owed;

				old->owed = false;	/* owed once */
				aoe_fence_late(t, aoe_path_find(t, dev_net(dev),
								dev->ifindex,
								f->src),
					       f->tag, owed, ktime_to_ns(now));
			}
			goto unlock;	/* NO_TAG: logged after the unlock */
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

	WRITE_ONCE(t->last_rx, jiffies);	/* read by evict_victim() */
	/* I/O only: an IDENTIFY may come from a candidate path (target.c) */
	if (!io->ident)
		WRITE_ONCE(t->answered, t->last_rx | 1);
	t->cnt.frames_received++;
	trace_aoe_frame_answered(t->shelf, t->slot, dev->ifindex, f->src, f->tag,
				 io->lba, io->len / AOE_SECTOR_SIZE,
				 aoe_io_cmd(io),
				 ktime_us_delta(now, f->tag == io->tag ?
						io->sent : io->prev_sent),
				 f->ata.status, aoe_error ? f->error : 0);
	/*
	 * A refusal says the target is there, nothing about the path's
	 * health: no RTT sample, no window growth, no reset of its timeouts.
	 */
	if (p && !refused)
		path_answered(t, p, io, f->tag, now);

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
			aoe_kick(t, &q);
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
			aoe_io_flush_error(t, f, aoe_error);
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
		/* copied in once the lock is dropped (aoe_io_claim()) */
		claimed = io;
		if (p)
			p->cnt.bytes_read += io->len;
		t->cnt.bytes_read += io->len;
	}
	aoe_io_fence(t, io, true, f->tag, p, now);
	/* its answer came: another answer to it would be a twin (fence.c) */
	aoe_tag_retire_answered(&t->tags, f->tag == io->tag ? &io->tag_ent :
							      &io->prev_ent);
	if (claimed)
		aoe_io_claim(t, io);
	else
		aoe_io_finish(t, io, st, &done);
	if (p) {
		u64 rack = aoe_fast_retransmit(t, p, now);

		if (rack)	/* a tail loss is resent at its deadline */
			aoe_arm_timer_at(t, rack);
	}
	aoe_kick(t, &q);
unlock:
	/* counted on the target here, the module's after */
	if (drop && drop != AOE_DROP_NO_TARGET)
		aoe_drop_locked(drop, t, dev, f->src);
	aoe_steer_tx(t, &q);
	spin_unlock(&t->lock);
	aoe_ata_xmit(&q);	/* BH still off: see send.c */
	/* the next frames are out: the data may go in on another CPU */
	if (claimed && aoe_steer_copy(t, claimed, skb, data_off)) {
		claimed = NULL;
		handed = true;	/* @skb and @f are not to be touched */
	}
	local_bh_enable();
	if (claimed)
		aoe_ata_copy_in(t, claimed, skb, data_off, &done);
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	if (drop)
		aoe_drop(drop, NULL, NULL);
	/* as in-tree; its ring has a lock of its own, not held with the target's */
	if (drop == AOE_DROP_NO_TAG)
		aoe_chardev_err("unexpected rsp e%u.%u tag=%08x@%08lx s=%pm d=%pm\n",
				f->shelf, f->slot, f->tag, jiffies, f->src,
				f->dst);
	return handed;
}
