/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_POLICY_KMOD_H
#define AOE_POLICY_KMOD_H

#include <net/genetlink.h>

#include "target.h"

/* module parameter: the fast-fail time of targets without their own */
extern int aoe_fast_fail;

/*
 * @t's effective deadsecs, in seconds and jiffies. Any context, with or
 * without t->lock (reads one word).
 */
u32 aoe_policy_target_deadsecs(const struct aoe_target *t);
unsigned long aoe_policy_dead_jiffies(const struct aoe_target *t);

/* The rest: caller holds t->lock. */
/* @t's effective fast-fail time in seconds, 0: off */
u32 aoe_policy_target_fast_fail(const struct aoe_target *t);
/* No path of @t can carry I/O: none up, or every one up is timing out. */
bool aoe_policy_no_path(const struct aoe_target *t);
/* Timer tick of @t (up, @pending: I/O queued or in flight): fail it now? */
bool aoe_policy_target_tick(struct aoe_target *t, bool pending);
/* A new request for @t: fail it at once (fast-fail is failing)? */
bool aoe_policy_refuse_io(struct aoe_target *t);

/* Netlink: the target's policy attributes (GET_TARGET, events). */
int aoe_policy_put(struct sk_buff *skb, const struct aoe_target *t);
/*
 * SET_TARGET's AOE_A_DEADSECS / AOE_A_FAST_FAIL, if present: 0, -EINVAL
 * (extack says what is wrong; nothing changed) or -ENOENT. Checks every
 * value before changing anything. Takes t->lock.
 */
int aoe_policy_nl_set(struct genl_info *info, u16 shelf, u8 slot);

#endif
