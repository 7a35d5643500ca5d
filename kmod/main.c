// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: ATA over Ethernet initiator. Only the init/exit order lives here.
 */
#include <linux/module.h>

#include "ata.h"
#include "blkdev.h"
#include "chardev.h"
#include "discover.h"
#include "netif.h"
#include "netlink.h"
#include "target.h"

static int __init aoe_init(void)
{
	int ret;

	ret = aoe_target_init();
	if (ret)
		goto err_target;
	ret = aoe_ata_init();
	if (ret)
		goto err_ata;
	ret = aoe_blkdev_init();
	if (ret)
		goto err_blkdev;
	ret = aoe_netlink_init();
	if (ret)
		goto err_netlink;
	ret = aoe_netif_init();
	if (ret)
		goto err_netif;
	ret = aoe_chardev_init();
	if (ret)
		goto err_chardev;
	ret = aoe_discover_init();
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
