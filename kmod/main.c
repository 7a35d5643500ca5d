// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: ATA over Ethernet initiator. Only the init/exit order lives here,
 * as one table: init runs the steps in order; exit runs every step's uninit
 * in reverse, and a failed init runs the uninit of the steps done so far in
 * that same reverse order, so the error path is the exit path.
 *
 * The order holds for both directions: targets (and their IDENTIFY frames
 * and disks) can exist as soon as the netdev notifier is registered (netif:
 * registration replays NETDEV_UP, which sends Query Config, and once its
 * receive hook is in it asks discover for the load-time broadcast), and tearing
 * them down (target) needs the I/O engine, the block major and the netlink
 * family alive, so those come before target, and target before netif.
 * ctl (control requests) comes after netlink and so is torn down before
 * the family is unregistered (its timer sends results through the family:
 * nothing of ctl runs once it is gone; a doit that still comes frees its
 * own request) and after netif (no answer left).
 * params (the per-namespace interface lists) is first: the hook, the
 * notifier and netlink ask for them.
 * netif is last, and cannot fail once its notifier is registered: a failed
 * init never has a target, a disk (which an opener could hold) or a
 * zero-copy frame (which holds a module reference) to undo, since the
 * kernel frees a module whose init failed whatever its reference count.
 * For the same reason the control files (chardev) refuse to open until
 * init is done.
 * Nothing here sleeps unbounded; each step's uninit waits only for what its
 * init started.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "ata.h"
#include "blkdev.h"
#include "chardev.h"
#include "ctl.h"
#include "discover.h"
#include "netif.h"
#include "netlink.h"
#include "params.h"
#include "steer.h"
#include "target.h"

struct aoe_step {
	const char *name;
	int (*init)(void);
	void (*uninit)(void);
};

static const struct aoe_step aoe_steps[] = {
	{ "params",	aoe_params_init,	aoe_params_uninit },
	{ "ata",	aoe_ata_init,		aoe_ata_uninit },
	{ "blkdev",	aoe_blkdev_init,	aoe_blkdev_uninit },
	{ "netlink",	aoe_netlink_init,	aoe_netlink_uninit },
	{ "ctl",	aoe_ctl_init,		aoe_ctl_uninit },
	{ "target",	aoe_target_init,	aoe_target_uninit },
	{ "chardev",	aoe_chardev_init,	aoe_chardev_uninit },
	{ "discover",	aoe_discover_init,	aoe_discover_uninit },
	{ "steer",	aoe_steer_init,		aoe_steer_uninit },
	{ "netif",	aoe_netif_init,		aoe_netif_uninit },
};

/*
 * Testing only (aoe(4), TESTING): aoe_fail_init=STEP[:MS] makes init step
 * STEP fail with -ECANCELED instead of running, after sleeping MS
 * milliseconds (at most 10 s, so that targets can answer the steps already
 * done). Not in sysfs, not listed by modinfo.
 */
static char *aoe_fail_init;
module_param_cb(aoe_fail_init, &param_ops_charp, &aoe_fail_init, 0);

static int __init aoe_fail_step(const char *step)
{
	size_t n = strlen(step);
	unsigned int ms = 0;

	if (!aoe_fail_init || strncmp(aoe_fail_init, step, n) ||
	    (aoe_fail_init[n] && aoe_fail_init[n] != ':'))
		return 0;
	if (aoe_fail_init[n] == ':' && kstrtouint(aoe_fail_init + n + 1, 10, &ms))
		ms = 0;
	msleep(min(ms, 10000U));
	pr_info("init step %s fails (aoe_fail_init)\n", step);
	return -ECANCELED;
}

/* Undo steps [0, @n) in reverse: rmmod, and init's error path. */
static void aoe_unwind(size_t n)
{
	while (n--)
		aoe_steps[n].uninit();
}

static int __init aoe_init(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(aoe_steps); i++) {
		ret = aoe_fail_step(aoe_steps[i].name);
		if (!ret)
			ret = aoe_steps[i].init();
		if (ret) {
			pr_err("init step %s failed (%d)\n", aoe_steps[i].name,
			       ret);
			aoe_unwind(i);
			return ret;
		}
	}
	pr_info("aoekit %s: ATA over Ethernet initiator\n", AOE_VERSION);
	return 0;
}

static void __exit aoe_exit(void)
{
	aoe_unwind(ARRAY_SIZE(aoe_steps));
}

module_init(aoe_init);
module_exit(aoe_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("aoekit developers");
MODULE_DESCRIPTION("ATA over Ethernet initiator (aoekit)");
MODULE_VERSION(AOE_VERSION);
