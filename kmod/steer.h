/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_STEER_H
#define AOE_STEER_H

#include <linux/skbuff.h>

#include "target.h"

struct aoe_io;

int aoe_steer_init(void);
void aoe_steer_uninit(void);

/* The CPU a new target's answers are processed on (t->rx_cpu). */
int aoe_steer_pick_cpu(void);

/*
 * Hand @skb, an ATA answer to @t, to t->rx_cpu unless it is to be
 * processed here (on that CPU with nothing queued there, or aoe_rx_spread
 * off). Returns true when it took @skb (and a reference on its device);
 * false when the caller is to process it here, or, with *@dropped, to drop
 * it (that CPU's queue is full). Softirq or bottom halves off.
 */
bool aoe_steer(const struct aoe_target *t, struct sk_buff *skb,
	       bool *dropped);

/*
 * A frame queued to be sent from another CPU (aoe_tx_spread) and still
 * unsent this long after is dropped: the stale-write fence counts a copy's
 * time from when it was built, and adds this much (fence.c).
 */
#define AOE_STEER_TX_MAX_MS	100
/*
 * Frames or answers queued this long ago and still waiting: their CPU
 * does not run its softirq (a vCPU descheduled, a real-time task). The
 * next sender to that CPU then sends what waits there itself, and its
 * own frames after them; the target's tick makes no loss decision while
 * what it waits for is that old and not yet AOE_STEER_TX_MAX_MS old
 * (timers.c, as for a late tick).
 */
#define AOE_STEER_STALL_MS	20

/*
 * With aoe_copy_spread, hand the copy of @io's read data (at offset @base
 * of @skb, an answer just processed: @io claimed) to another CPU: t->rx_cpu,
 * or the next online housekeeping CPU when that is this one. Returns true
 * when it took @skb (the caller forgets it and @io); false when the caller
 * is to copy here (aoe_copy_spread off, no other CPU, that CPU's queue
 * full). Bottom halves off, no lock held.
 */
bool aoe_steer_copy(struct aoe_target *t, struct aoe_io *io,
		    struct sk_buff *skb, int base);

/*
 * Copy every queued copy here, and end the requests that finishes: the
 * blk-mq timeout's backstop for a CPU that does not poll. Process context,
 * no lock held.
 */
void aoe_steer_copy_rescue(void);

/* The CPU a new target's frames are sent from (t->tx_cpu). */
int aoe_steer_pick_tx_cpu(int rx_cpu);

/*
 * With aoe_tx_spread, hand the frames on @q (built for @t) to t->tx_cpu:
 * queued there, each holding a reference on its device, and sent in that
 * order by the CPU's NAPI context; @q is left empty. Otherwise (or when
 * this is that CPU, or it is offline, and nothing waits there; or when
 * what waits there was queued AOE_STEER_STALL_MS ago: then sent first,
 * from here) @q is left for the caller to send (aoe_ata_xmit(), which
 * also kicks that CPU). Called under t->lock, where the frames were
 * built: a target's frames are queued in the order they were built (and
 * stamped: loss detection takes that for the order they left in).
 */
void aoe_steer_tx(struct aoe_target *t, struct sk_buff_head *q);

/*
 * Does what @t waits for wait on a stalled CPU: its frames queued at its
 * transmit CPU, or answers at its answers' CPU, for AOE_STEER_STALL_MS?
 * Under t->lock.
 */
bool aoe_steer_stalled(const struct aoe_target *t);

/*
 * Kick the CPU frames were queued to (aoe_steer_tx() owes it): called by
 * aoe_ata_xmit(), bottom halves still off; on the data path after the
 * target's lock is dropped (not inside its busiest section: an IPI is a
 * VM exit), on the control path still under it.
 */
void aoe_steer_flush(void);

#endif
