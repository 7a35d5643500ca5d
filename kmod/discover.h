/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_DISCOVER_H
#define AOE_DISCOVER_H

#define AOE_DISCOVER_INTERVAL_SECS 60

int aoe_discover_init(void);
void aoe_discover_uninit(void);

/*
 * Broadcast Query Config on @ifname, or every usable interface when NULL,
 * of @net, or of every namespace when @net is NULL. Returns how many went.
 */
int aoe_discover_send(struct net *net, const char *ifname);
/* Unicast Query Config to one target over every path it has. */
int aoe_discover_target(u16 shelf, u8 slot);
/*
 * Run the periodic broadcast now (from a worker): netif calls it once its
 * receive hook is in, so that the load-time Query Config is answered into a
 * module that can take the answer.
 */
void aoe_discover_now(void);

#endif
