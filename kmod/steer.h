/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_STEER_H
#define AOE_STEER_H

#include <linux/skbuff.h>

#include "target.h"

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

#endif
