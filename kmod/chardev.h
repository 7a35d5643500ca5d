/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_CHARDEV_H
#define AOE_CHARDEV_H

#include <linux/compiler.h>

int aoe_chardev_init(void);
void aoe_chardev_uninit(void);

/* Queue a line for readers of /dev/etherd/err. Any context. */
__printf(1, 2) void aoe_chardev_err(const char *fmt, ...);

#endif
