/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_NETLINK_H
#define AOE_NETLINK_H

#include "target.h"

int aoe_netlink_init(void);
void aoe_netlink_uninit(void);

/*
 * Multicast an event about @t (and, for path events, the one path @p) to the
 * "events" group. Called with t->lock held; never sleeps.
 */
void aoe_netlink_notify(u8 cmd, struct aoe_target *t, struct aoe_path *p);
/* AOE_CMD_ADDRESS_CONFLICT about refused path @c of @t. Same context. */
void aoe_netlink_conflict(struct aoe_target *t, const struct aoe_conflict *c);

/*
 * For ctl.c's asynchronous results: a message header of the family, and a
 * unicast to @portid in @net (0 or -errno; never sleeps, any context).
 */
void *aoe_netlink_put_hdr(struct sk_buff *skb, u32 portid, u32 seq, u8 cmd);
int aoe_netlink_unicast(struct net *net, struct sk_buff *skb, u32 portid);

#endif
