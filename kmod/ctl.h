/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_CTL_H
#define AOE_CTL_H

#include <linux/netdevice.h>
#include <net/genetlink.h>

#include "aoe_codec.h"

int aoe_ctl_init(void);
void aoe_ctl_uninit(void);

/* AOE_CMD_CTL (uapi/aoe_netlink.h): sends and returns, never waits. */
int aoe_ctl_doit(struct sk_buff *skb, struct genl_info *info);

/*
 * A Query Config, MAC Mask List or Reserve/Release answer @f from @dev.
 * Returns true when its tag belongs to a pending control request (the frame
 * was taken or, from the wrong path, dropped and counted). Softirq.
 */
bool aoe_ctl_rx(struct net_device *dev, const struct aoe_frame *f);

#endif
