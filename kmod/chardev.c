// SPDX-License-Identifier: GPL-2.0
/*
 * The in-tree driver's control files, for aoetools: /dev/etherd/discover,
 * interfaces, revalidate, flush (write) and err (read). A write to discover
 * broadcasts in every network namespace AoE may use (as netlink's
 * DISCOVER); interfaces sets the list of the writer's namespace if AoE uses
 * it, else aoe_iflist (the initial namespace's, as the in-tree driver).
 * The files exist from this init step on, but open() is refused (EAGAIN)
 * until the whole init has succeeded (aoe_chr_open()).
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "blkdev.h"
#include "chardev.h"
#include "compat.h"
#include "discover.h"
#include "params.h"
#include "target.h"

enum {
	AOE_MINOR_ERR = 2,
	AOE_MINOR_DISCOVER,
	AOE_MINOR_INTERFACES,
	AOE_MINOR_REVALIDATE,
	AOE_MINOR_FLUSH,
};

static const struct {
	int minor;
	const char *name;
} aoe_chardevs[] = {
	{ AOE_MINOR_ERR, "err" },
	{ AOE_MINOR_DISCOVER, "discover" },
	{ AOE_MINOR_INTERFACES, "interfaces" },
	{ AOE_MINOR_REVALIDATE, "revalidate" },
	{ AOE_MINOR_FLUSH, "flush" },
};

#define AOE_ERR_LINES	100
#define AOE_ERR_LINE	160

static struct class *aoe_class;
static DEFINE_SPINLOCK(err_lock);
static DECLARE_WAIT_QUEUE_HEAD(err_wait);
static char err_ring[AOE_ERR_LINES][AOE_ERR_LINE];
static unsigned int err_head, err_count;

void aoe_chardev_err(const char *fmt, ...)
{
	unsigned long flags;
	va_list ap;

	spin_lock_irqsave(&err_lock, flags);
	va_start(ap, fmt);
	vscnprintf(err_ring[(err_head + err_count) % AOE_ERR_LINES],
		   AOE_ERR_LINE, fmt, ap);
	va_end(ap);
	if (err_count < AOE_ERR_LINES)
		err_count++;
	else
		err_head = (err_head + 1) % AOE_ERR_LINES;
	spin_unlock_irqrestore(&err_lock, flags);
	wake_up_interruptible(&err_wait);
}

static ssize_t err_read(struct file *filp, char __user *buf, size_t cnt,
			loff_t *off)
{
	char line[AOE_ERR_LINE];
	size_t len;
	int ret;

	for (;;) {
		spin_lock_irq(&err_lock);
		if (err_count) {
			memcpy(line, err_ring[err_head], sizeof(line));
			err_head = (err_head + 1) % AOE_ERR_LINES;
			err_count--;
			spin_unlock_irq(&err_lock);
			break;
		}
		spin_unlock_irq(&err_lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(err_wait, READ_ONCE(err_count));
		if (ret)
			return ret;
	}
	len = strnlen(line, sizeof(line));
	if (len > cnt)
		len = cnt;	/* as in-tree: a short buffer truncates */
	if (copy_to_user(buf, line, len))
		return -EFAULT;
	return len;
}

/* Copy a user write into a NUL-terminated, whitespace-trimmed string. */
static char *get_line(const char __user *buf, size_t cnt)
{
	if (cnt > AOE_IFLIST_MAX - 1)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(buf, cnt);
}

static ssize_t aoe_chr_write(struct file *filp, const char __user *buf,
			     size_t cnt, loff_t *off)
{
	int minor = iminor(file_inode(filp));
	u16 shelf;
	u8 slot;
	struct net *net;
	char *s;
	int ret = 0;

	if (minor == AOE_MINOR_DISCOVER) {
		/* every namespace AoE may use, as netlink's discover */
		aoe_discover_send(NULL, NULL);
		return cnt;
	}
	s = get_line(buf, cnt);
	if (IS_ERR(s))
		return PTR_ERR(s);
	strim(s);
	switch (minor) {
	case AOE_MINOR_INTERFACES:
		/*
		 * The writer's namespace, if AoE uses it: each has its own
		 * list; from any other, aoe_iflist (as the in-tree driver).
		 */
		net = current->nsproxy->net_ns;
		if (!aoe_params_net_allowed(net))
			net = &init_net;
		ret = aoe_params_set_iflist(net, s);
		if (!ret)
			aoe_discover_send(net, NULL);
		break;
	case AOE_MINOR_REVALIDATE:
		if (aoe_parse_device(s, &shelf, &slot)) {
			ret = -EINVAL;
			break;
		}
		ret = aoe_target_revalidate(shelf, slot);
		break;
	case AOE_MINOR_FLUSH:
		if (!*s || !strcmp(s, "all"))
			aoe_target_flush(*s != '\0', -1, -1);
		else if (!aoe_parse_device(s, &shelf, &slot))
			aoe_target_flush(true, shelf, slot);
		else
			ret = -EINVAL;
		break;
	default:
		ret = -EINVAL;
	}
	kfree(s);
	return ret ? ret : cnt;
}

/*
 * Refused until the module's init is done (state COMING; the core takes the
 * module reference anyway, since a COMING module counts as live): a failed
 * init frees the module whatever its reference count, so a file opened
 * during a later step's failure would outlive the code behind it (a reader
 * asleep in err_read(), any later write). After a successful init, the
 * reference an open file holds keeps the module.
 */
static int aoe_chr_open(struct inode *inode, struct file *filp)
{
	int i;

	if (!aoe_module_live())
		return -EAGAIN;
	for (i = 0; i < ARRAY_SIZE(aoe_chardevs); i++)
		if (aoe_chardevs[i].minor == iminor(inode))
			return 0;
	return -ENODEV;
}

static ssize_t aoe_chr_read(struct file *filp, char __user *buf, size_t cnt,
			    loff_t *off)
{
	if (iminor(file_inode(filp)) != AOE_MINOR_ERR)
		return -EINVAL;
	return err_read(filp, buf, cnt, off);
}

static __poll_t aoe_chr_poll(struct file *filp, poll_table *wait)
{
	if (iminor(file_inode(filp)) != AOE_MINOR_ERR)
		return EPOLLOUT | EPOLLWRNORM;
	poll_wait(filp, &err_wait, wait);
	return READ_ONCE(err_count) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations aoe_chr_fops = {
	.owner = THIS_MODULE,
	.open = aoe_chr_open,
	.read = aoe_chr_read,
	.write = aoe_chr_write,
	.poll = aoe_chr_poll,
	.llseek = noop_llseek,
};

static char *aoe_devnode(AOE_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "etherd/%s", dev_name(dev));
}

int aoe_chardev_init(void)
{
	int i, ret;

	ret = register_chrdev(AOE_MAJOR, "aoechr", &aoe_chr_fops);
	if (ret < 0) {
		pr_err("cannot register char major %d\n", AOE_MAJOR);
		return ret;
	}
	aoe_class = aoe_class_create("aoe");
	if (IS_ERR(aoe_class)) {
		unregister_chrdev(AOE_MAJOR, "aoechr");
		return PTR_ERR(aoe_class);
	}
	aoe_class->devnode = aoe_devnode;
	for (i = 0; i < ARRAY_SIZE(aoe_chardevs); i++)
		device_create(aoe_class, NULL,
			      MKDEV(AOE_MAJOR, aoe_chardevs[i].minor), NULL,
			      aoe_chardevs[i].name);
	return 0;
}

void aoe_chardev_uninit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(aoe_chardevs); i++)
		device_destroy(aoe_class,
			       MKDEV(AOE_MAJOR, aoe_chardevs[i].minor));
	class_destroy(aoe_class);
	unregister_chrdev(AOE_MAJOR, "aoechr");
}
