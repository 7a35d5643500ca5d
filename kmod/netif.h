/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_NETIF_H
#define AOE_NETIF_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

int aoe_netif_init(void);
void aoe_netif_uninit(void);

/* An up Ethernet interface that aoe_iflist allows. Caller holds RCU or RTNL. */
bool aoe_netif_usable(const struct net_device *dev);
/* A zeroed frame of @len bytes (at least ETH_ZLEN) ready for @dev. */
struct sk_buff *aoe_netif_alloc_skb(struct net_device *dev, unsigned int len,
				    gfp_t gfp);
void aoe_netif_xmit(struct sk_buff *skb);
/*
 * An ATA answer the receive hook queued to its target's CPU (steer.c):
 * checked and processed here, never queued again. Softirq.
 * Consumes @skb.
 */
void aoe_netif_rx_steered(struct sk_buff *skb);

#endif
