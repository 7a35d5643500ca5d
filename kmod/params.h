/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_PARAMS_H
#define AOE_PARAMS_H

#include <linux/module.h>
#include <linux/types.h>

#define AOE_IFLIST_MAX 1024

/*
 * Init has succeeded. A COMING module counts as live for try_module_get(),
 * but a failed init frees it whatever its reference count: user entry
 * points that can outlive their call (an open file, a pending dump) refuse
 * until this is true (chardev.c, netlink.c).
 */
static inline bool aoe_module_live(void)
{
	return READ_ONCE(THIS_MODULE->state) == MODULE_STATE_LIVE;
}

extern int aoe_deadsecs;
extern int aoe_maxout;
extern int aoe_dyndevs;
extern int aoe_hw_queues;
#define AOE_HW_QUEUES_MAX 16
extern int aoe_maxsectors;
extern bool aoe_zerocopy;
extern bool aoe_zerocopy_forward;
extern bool aoe_rx_spread;
extern bool aoe_tx_spread;
extern bool aoe_copy_spread;
extern int aoe_flush;		/* enum aoe_flush_mode, never DEFAULT */

/* aoe_test_faults bits (testing aid, load time only) */
#define AOE_TEST_LATE_TICKS	1	/* every timer tick counts as late */
#define AOE_TEST_NO_DEADLINE	2	/* the engine enforces no deadline */
#define AOE_TEST_SLOW_TEARDOWN	4	/* 3 s between unlinking and deleting a disk */
#define AOE_TEST_SPLIT_NOMEM	8	/* every other split of a frame finds no memory */
extern unsigned int aoe_test_faults;

extern bool aoe_netns;

struct net;
/* may AoE use interfaces in @net? (aoe_netns, params.c) */
bool aoe_params_net_allowed(const struct net *net);
/* @ifname in @net's interface list (aoe_iflist in the initial namespace)? */
bool aoe_params_if_allowed(const struct net *net, const char *ifname);
int aoe_params_set_iflist(struct net *net, const char *list);
int aoe_params_inherit_iflist(struct net *net);
/* @net's list in force into @buf; true when it is aoe_iflist's, inherited */
bool aoe_params_get_iflist(const struct net *net, char *buf, size_t len);
int aoe_params_init(void);
void aoe_params_uninit(void);

#endif
