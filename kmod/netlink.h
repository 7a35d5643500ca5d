/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_NETLINK_H
#define AOE_NETLINK_H

#include "target.h"

int aoe_netlink_init(void);
void aoe_netlink_uninit(void);

/*
 * Multicast an event about @t (and, for path events, the one path @p) to the
 * "events" group. Called with aoe_tgt_lock held; never sleeps.
 */
void aoe_netlink_notify(u8 cmd, struct aoe_target *t, struct aoe_path *p);

#endif
