/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_ATA_H
#define AOE_ATA_H

#include <linux/blk-mq.h>
#include <linux/skbuff.h>

#include "target.h"

struct aoe_io;

/* a path stops carrying I/O after this many timeout events in a row */
#define AOE_PATH_FAIL_EVENTS	4

/*
 * A byte position in a request's data: the bio holding it and that bio's
 * iterator advanced to it; bio NULL for a request without data. Valid
 * until the request ends, because this driver only ever ends a request
 * whole (blk_mq_end_request()) and never requeues one: a partial
 * completion (blk_update_request()) or a requeue would advance or replace
 * the bios under it.
 */
struct aoe_rq_pos {
	struct bio *bio;
	struct bvec_iter iter;
};

/* Per-request state, the blk-mq PDU. */
struct aoe_rq {
	struct list_head node;	/* on target->rq_queue while bytes remain */
	u32 sent;		/* bytes carved into frames */
	u32 done;		/* bytes answered (or failed) */
	u32 copying;		/* bytes answered, being copied in (io.c) */
	blk_status_t status;
	unsigned long start;	/* jiffies, when blk-mq started it */
	unsigned long moved;	/* jiffies|1: a frame carved or accounted, 0 none yet */
	u64 held_ns;		/* when the fence held it (fence.c) */
	struct aoe_rq_pos next;	/* where the next frame starts (send.c) */
};

int aoe_ata_init(void);
void aoe_ata_uninit(void);

/* A target's engine tick (timers.c): set up with the target (t->timer). */
enum hrtimer_restart aoe_target_tick(struct hrtimer *timer);

/*
 * An ATA response for @f from @dev; @skb->data is at the AoE header. With
 * @may_steer, an answer received on another CPU than its target's may be
 * queued there (steer.c); a read's data may be left to another CPU to
 * copy (aoe_copy_spread). Returns true when @skb was taken so, and the
 * caller forgets it (and @f, which points into it); false when it was
 * processed (the caller frees @skb).
 */
bool aoe_ata_rx(struct net_device *dev, const struct aoe_frame *f,
		bool aoe_error, struct sk_buff *skb, bool may_steer);

/*
 * The data of @io, a read frame claimed by its answer (aoe_io_claim()), is
 * at offset @base of @skb: copy it into the request's pages and end the
 * frame (aoe_io_claim_end(); requests it finished go on @done). Softirq,
 * or bottom halves off; no lock held.
 */
void aoe_ata_copy_in(struct aoe_target *t, struct aoe_io *io,
		     const struct sk_buff *skb, int base, struct list_head *done);

/* Queue a started request; returns false when the target cannot take I/O. */
bool aoe_ata_submit(struct aoe_target *t, struct request *rq);

/*
 * The blk-mq timeout handler gave up on @rq. Returns true when the caller is
 * to end it: its frames have left the engine (a frame a transmission still
 * holds is freed when the network releases it; the pages stay referenced
 * until then). False when the engine is ending it already (all its bytes are
 * accounted and it is on some caller's list, or ended). Process context.
 */
bool aoe_ata_timeout(struct aoe_target *t, struct request *rq);

/* Send what the windows allow now, e.g. after a path came back. RCU + lock. */
void aoe_ata_kick(struct aoe_target *t);

/*
 * IDENTIFY DEVICE over exactly path @p (never resent on another path; resent
 * on @p at its RTO at most AOE_IDENT_RESENDS times). Start: caller holds RCU
 * and t->lock; returns a handle or an ERR_PTR. Wait: process context,
 * no lock, waits at most @timeout jiffies and parses the answer into @out
 * (never into t->id): returns -errno when no answer came, else what
 * aoe_parse_identify() said (AOE_IDENT_OK, or > 0: unusable). The handle
 * stays valid (and unique: callers find their path by it) until the caller
 * frees it with aoe_ata_identify_free(), after it looked its path up.
 */
#define AOE_IDENT_RESENDS	3
struct aoe_ident *aoe_ata_identify_start(struct aoe_target *t,
					 struct aoe_path *p);
int aoe_ata_identify_wait(struct aoe_target *t, struct aoe_ident *h,
			  unsigned long timeout, struct aoe_identity *out);
void aoe_ata_identify_free(struct aoe_ident *h);

/*
 * Fail every outstanding frame and queued request of @t with -EIO.
 * Caller holds t->lock; completions are collected in @done and ended
 * by aoe_ata_end_requests() after the lock is dropped.
 */
void aoe_ata_fail_all(struct aoe_target *t, struct list_head *done);
void aoe_ata_end_requests(struct list_head *done);

/*
 * A path lost its link (@removed: its interface is going away): resend its
 * frames on another path. With none left, a removed path's frames fail and
 * a downed one's wait for the link (or their deadline). Caller holds RCU and
 * t->lock and ends @done after dropping the lock.
 */
void aoe_ata_path_gone(struct aoe_target *t, struct aoe_path *p,
		       struct sk_buff_head *xmitq, struct list_head *done,
		       bool removed);
/*
 * Path @p is refused (another device) or dropped: its IDENTIFY fails, its
 * frames wait for another path (or their deadline) and forget @p, which
 * the caller frees. Nothing is sent here: the caller kicks once every path
 * that must not carry I/O is marked so. Caller holds t->lock.
 */
void aoe_ata_path_refused(struct aoe_target *t, struct aoe_path *p,
			  struct list_head *done);
/* A path's payload shrank (MTU): resend frames that no longer fit theirs. */
void aoe_ata_payload_shrunk(struct aoe_target *t, struct sk_buff_head *xmitq);
void aoe_ata_xmit(struct sk_buff_head *xmitq);
/*
 * Send @xmitq, frames built for @t, under t->lock: by its transmit CPU
 * with aoe_tx_spread (aoe_steer_tx()), else from here (aoe_ata_xmit()).
 * The data path drops the lock between the two instead (send.c).
 */
void aoe_ata_xmit_locked(struct aoe_target *t, struct sk_buff_head *xmitq);

#endif
