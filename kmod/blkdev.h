/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_BLKDEV_H
#define AOE_BLKDEV_H

#include "target.h"

#define AOE_MAJOR	152	/* as the in-tree driver */
#define AOE_PARTITIONS	16
#define AOE_NPERSHELF	16	/* slots per shelf with aoe_dyndevs=0 */

int aoe_blkdev_init(void);
void aoe_blkdev_uninit(void);

/* Create the disk of an identified target (nothing when it exists). */
int aoe_blkdev_add(struct aoe_target *t);
/*
 * A revalidate changed the size: set it (udev gets a change event with
 * RESIZE=1). Process context, from target_work() only.
 */
void aoe_blkdev_set_capacity(struct aoe_target *t, u64 sectors);
/*
 * Declare a volatile write cache and FUA (or not). Process context, from
 * the target's cache_work only (target.c).
 */
void aoe_blkdev_set_cache(struct aoe_target *t, bool wc, bool fua);
/* Delete it; the target is already unlinked. Process context. */
void aoe_blkdev_del(struct aoe_target *t);
/* Opens of the target's disk (0 without one). Caller holds aoe_tgt_lock. */
unsigned int aoe_blkdev_openers(struct aoe_target *t);

#endif
