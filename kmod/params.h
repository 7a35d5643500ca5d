/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_PARAMS_H
#define AOE_PARAMS_H

#include <linux/types.h>

#define AOE_IFLIST_MAX 1024

extern int aoe_deadsecs;
extern int aoe_maxout;
extern int aoe_dyndevs;
extern int aoe_maxsectors;
extern bool aoe_zerocopy;

bool aoe_params_if_allowed(const char *ifname);
int aoe_params_set_iflist(const char *list);
void aoe_params_get_iflist(char *buf, size_t len);

#endif
