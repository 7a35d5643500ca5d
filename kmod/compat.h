/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that knows kernel versions: one source tree builds on
 * Debian's 6.1 and on 6.12 (bookworm-backports).
 */
#ifndef AOE_COMPAT_H
#define AOE_COMPAT_H

#include <linux/version.h>

/* 6.9: blk_mq_alloc_disk() takes the queue limits */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define AOE_HAVE_QUEUE_LIMITS 1
#endif

/*
 * 6.11: queue features (write cache, FUA) are queue_limits features,
 * changed with queue_limits_start_update()/commit_update(); before,
 * blk_queue_write_cache()
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define AOE_HAVE_QUEUE_FEATURES 1
#endif

/* 6.10: struct ubuf_info has ops (complete, link_skb), not a callback */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define AOE_HAVE_UBUF_OPS 1
#endif

/* 6.13: hrtimer_setup() sets the callback; hrtimer_init() went in 6.15 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define aoe_hrtimer_setup(timer, fn, clock, mode) \
	hrtimer_setup(timer, fn, clock, mode)
#else
#define aoe_hrtimer_setup(timer, fn, clock, mode) \
	do { \
		hrtimer_init(timer, clock, mode); \
		(timer)->function = fn; \
	} while (0)
#endif

/* 6.2: class devnode() takes a const device */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define AOE_DEVNODE_CONST const
#else
#define AOE_DEVNODE_CONST
#endif

/* 6.4: class_create() lost its owner argument */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define aoe_class_create(name) class_create(name)
#else
#define aoe_class_create(name) class_create(THIS_MODULE, name)
#endif

/* 6.5: block_device_operations open/release take the gendisk, blk_mode_t */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define AOE_BDOPS_OPEN_ARGS struct gendisk *disk, blk_mode_t mode
#define AOE_BDOPS_OPEN_DISK disk
#define AOE_BDOPS_RELEASE_ARGS struct gendisk *disk
#else
#define AOE_BDOPS_OPEN_ARGS struct block_device *bdev, fmode_t mode
#define AOE_BDOPS_OPEN_DISK (bdev->bd_disk)
#define AOE_BDOPS_RELEASE_ARGS struct gendisk *disk, fmode_t mode
#endif

/*
 * 6.5: BLK_STS_NEXUS became BLK_STS_RESV_CONFLICT (same value, 6): I/O
 * refused because another initiator holds a reservation (AoE error 6)
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define AOE_BLK_STS_RESERVED BLK_STS_RESV_CONFLICT
#else
#define AOE_BLK_STS_RESERVED BLK_STS_NEXUS
#endif

/*
 * 6.10: alloc_netdev_dummy() (a device only for NAPI contexts); before, a
 * zeroed struct net_device set up by init_dummy_netdev()
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define AOE_HAVE_NETDEV_DUMMY 1
#endif

#endif
