// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: ATA over Ethernet initiator. Only the init/exit order lives here.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ata.h"
#include "blkdev.h"
#include "chardev.h"
#include "discover.h"
#include "netif.h"
#include "netlink.h"
#include "target.h"

/*
 * Testing only (aoe(4), TESTING): aoe_fail_init=STEP[:MS] makes init step
 * STEP fail with -ECANCELED instead of running, after sleeping MS
 * milliseconds (so that targets can answer the steps already done). Not in
 * sysfs, not listed by modinfo.
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

static int __init aoe_init(void)
{
	int ret;

	ret = aoe_fail_step("target") ?: aoe_target_init();
	if (ret)
		goto err_target;
	ret = aoe_fail_step("ata") ?: aoe_ata_init();
	if (ret)
		goto err_ata;
	ret = aoe_fail_step("blkdev") ?: aoe_blkdev_init();
	if (ret)
		goto err_blkdev;
	ret = aoe_fail_step("netlink") ?: aoe_netlink_init();
	if (ret)
		goto err_netlink;
	ret = aoe_fail_step("netif") ?: aoe_netif_init();
	if (ret)
		goto err_netif;
	ret = aoe_fail_step("chardev") ?: aoe_chardev_init();
	if (ret)
		goto err_chardev;
	ret = aoe_fail_step("discover") ?: aoe_discover_init();
	if (ret)
		goto err_discover;
	pr_info("aoekit %s: ATA over Ethernet initiator\n", AOE_VERSION);
	return 0;

err_discover:
	aoe_chardev_uninit();
err_chardev:
	aoe_netif_uninit();
err_netif:
	aoe_netlink_uninit();
err_netlink:
	aoe_blkdev_uninit();
err_blkdev:
	aoe_ata_uninit();
err_ata:
	aoe_target_uninit();
err_target:
	return ret;
}

static void __exit aoe_exit(void)
{
	aoe_discover_uninit();
	aoe_chardev_uninit();
	aoe_netif_uninit();
	aoe_target_uninit();
	aoe_netlink_uninit();
	aoe_blkdev_uninit();
	aoe_ata_uninit();
}

module_init(aoe_init);
module_exit(aoe_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("aoekit developers");
MODULE_DESCRIPTION("ATA over Ethernet initiator (aoekit)");
MODULE_VERSION(AOE_VERSION);
