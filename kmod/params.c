// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters, with the in-tree driver's names and meanings:
 *   aoe_iflist     interfaces AoE may use, space separated (empty: all), in
 *                  the initial network namespace, and in every other
 *                  namespace AoE may use (aoe_netns) until that one gets a
 *                  list of its own (/dev/etherd/interfaces written from
 *                  inside it, or netlink SET_INTERFACES with AOE_A_NETNS_FD;
 *                  AOE_A_IFLIST_INHERIT makes it follow aoe_iflist again)
 *   aoe_deadsecs   seconds without an answer before a target is failed
 *   aoe_maxout     cap on frames outstanding per target
 *   aoe_dyndevs    allocate minors dynamically (1) or from shelf.slot (0)
 *   aoe_maxsectors largest I/O request in sectors (0: no cap)
 * and one of aoekit's own:
 *   aoe_zerocopy   send write data from the request's pages (1, default)
 *                  or copy it into each frame (0)
 *   aoe_zerocopy_forward
 *                  such frames keep the pages when forwarded to another
 *                  device (1; io.c) or are copied there (0, default)
 *   aoe_rx_spread  process a target's answers on the CPU given to it (1;
 *                  steer.c) or on the CPU they arrive on (0, default)
 *   aoe_tx_spread  send a target's frames from the CPU after its answers'
 *                  CPU (1; steer.c) or from where they are built (0,
 *                  default)
 *   aoe_copy_spread
 *                  copy an answer's read data into the request's pages,
 *                  and end the request, on another CPU than the answer's
 *                  (1; steer.c) or on the answer's (0, default)
 *   aoe_hw_queues  blk-mq hardware queues per disk (1, default, to 16;
 *                  blkdev.c), load time only
 *   aoe_flush      auto|always|never: when a disk declares a volatile write
 *                  cache and sends FLUSH CACHE (target.c); a change applies
 *                  to every disk at once
 *   aoe_netns      use interfaces in network namespaces other than the
 *                  initial one (0, default: only the initial one, as the
 *                  in-tree driver); even then only namespaces owned by the
 *                  initial user namespace: a namespace an unprivileged user
 *                  made (unshare -Urn) could otherwise answer as a host's
 *                  target and receive its writes. Load time only.
 * Invalid values are rejected with a message, at load and at run time.
 *
 * Locking: the interface lists are RCU-published, immutable strings: the
 * receive hook asks for every frame, so readers take no lock (they may run
 * in any context; they take rcu_read_lock() themselves). Writers (process
 * context: the module parameter, netlink, /dev/etherd/interfaces) hold
 * iflist_mutex, swap a new copy in with rcu_replace_pointer() and free the
 * old one with kfree_rcu(). The initial namespace's list is freed by the
 * parameter's .free (rmmod, and a failed load), the others by the pernet
 * exit, after which nothing can ask for them: the namespace's devices are
 * gone (at rmmod every step that reads the lists is torn down before
 * params, and an open control file holds the module; not so during a
 * failing init, which frees the module whatever its count: a control file
 * opened between the chardev step and a later step's failure is a known
 * hole, of chardev.c as much as of these lists).
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "params.h"
#include "target.h"

int aoe_deadsecs = 60 * 3;
int aoe_maxout = 64;
int aoe_dyndevs = 1;
int aoe_hw_queues = 1;
int aoe_maxsectors;
bool aoe_zerocopy = true;
bool aoe_zerocopy_forward;
bool aoe_rx_spread;
bool aoe_tx_spread;
bool aoe_copy_spread;
int aoe_flush = AOE_FLUSH_MODE_AUTO;
unsigned int aoe_test_faults;

/* A list of interface names, single spaces; "" is every interface. */
struct aoe_iflist {
	struct rcu_head rcu;
	char names[];
};

static DEFINE_MUTEX(iflist_mutex);
/* aoe_iflist, the initial namespace's list: NULL is every interface */
static struct aoe_iflist __rcu *init_iflist;

/* A namespace other than the initial one: NULL follows aoe_iflist. */
struct aoe_net_params {
	struct aoe_iflist __rcu *iflist;
};

static unsigned int aoe_net_id;

/* Parse an int in [min, max]; @extra_min: smallest non-zero value allowed. */
static int parse_ranged(const char *val, const struct kernel_param *kp,
			int min, int max, int extra_min, int *out)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret || n < min || n > max || (n && n < extra_min)) {
		int len = strcspn(val, "\n");

		if (extra_min > min)
			pr_err("%s: '%.*s' rejected: must be 0 or an integer from %d to %d\n",
			       kp->name, len, val, extra_min, max);
		else
			pr_err("%s: '%.*s' rejected: must be an integer from %d to %d\n",
			       kp->name, len, val, min, max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static int set_ranged(const char *val, const struct kernel_param *kp,
		      int min, int max, int extra_min)
{
	int n, ret;

	ret = parse_ranged(val, kp, min, max, extra_min, &n);
	if (!ret)
		WRITE_ONCE(*(int *)kp->arg, n);
	return ret;
}

static int set_deadsecs(const char *val, const struct kernel_param *kp)
{
	return set_ranged(val, kp, 1, 24 * 3600, 0);
}

static int set_maxout(const char *val, const struct kernel_param *kp)
{
	return set_ranged(val, kp, 1, 65535, 0);
}

static int set_dyndevs(const char *val, const struct kernel_param *kp)
{
	return set_ranged(val, kp, 0, 1, 0);
}

static int set_hw_queues(const char *val, const struct kernel_param *kp)
{
	/* a disk's 128 requests are shared among them (blkdev.c) */
	return set_ranged(val, kp, 1, AOE_HW_QUEUES_MAX, 0);
}

static int set_maxsectors(const char *val, const struct kernel_param *kp)
{
	/* 0 means no cap; otherwise at least one 4 KiB page */
	return set_ranged(val, kp, 0, 65535, 8);
}

static const struct kernel_param_ops deadsecs_ops = {
	.set = set_deadsecs, .get = param_get_int,
};

static const struct kernel_param_ops maxout_ops = {
	.set = set_maxout, .get = param_get_int,
};

static const struct kernel_param_ops dyndevs_ops = {
	.set = set_dyndevs, .get = param_get_int,
};

static const struct kernel_param_ops hw_queues_ops = {
	.set = set_hw_queues, .get = param_get_int,
};

static const struct kernel_param_ops maxsectors_ops = {
	.set = set_maxsectors, .get = param_get_int,
};

module_param_cb(aoe_deadsecs, &deadsecs_ops, &aoe_deadsecs, 0644);
MODULE_PARM_DESC(aoe_deadsecs, "Seconds without an answer before a target is failed (default 180).");
module_param_cb(aoe_maxout, &maxout_ops, &aoe_maxout, 0644);
MODULE_PARM_DESC(aoe_maxout, "Most frames outstanding per target (default 64).");
module_param_cb(aoe_dyndevs, &dyndevs_ops, &aoe_dyndevs, 0444);
MODULE_PARM_DESC(aoe_dyndevs, "Dynamic minor numbers (1, default) or from shelf.slot (0).");
module_param_cb(aoe_hw_queues, &hw_queues_ops, &aoe_hw_queues, 0444);
MODULE_PARM_DESC(aoe_hw_queues, "blk-mq hardware queues per disk, 1 to 16, sharing its 128 requests (default 1; load time only).");
module_param_cb(aoe_maxsectors, &maxsectors_ops, &aoe_maxsectors, 0644);
MODULE_PARM_DESC(aoe_maxsectors, "Largest I/O request in 512-byte sectors (0: no cap).");
module_param(aoe_zerocopy, bool, 0644);
MODULE_PARM_DESC(aoe_zerocopy, "Send write data from the request's pages where the device allows (default Y).");
module_param(aoe_zerocopy_forward, bool, 0644);
MODULE_PARM_DESC(aoe_zerocopy_forward, "Zero-copy write frames are not copied when forwarded to another device, a veth peer or bridge port (default N: copied there; Y only where no namespace on the segment is untrusted, see aoe(4)).");
module_param(aoe_rx_spread, bool, 0644);
MODULE_PARM_DESC(aoe_rx_spread, "Process each target's answers on a CPU of its own, round robin (default N: where they arrive).");
module_param(aoe_tx_spread, bool, 0644);
MODULE_PARM_DESC(aoe_tx_spread, "Send each target's frames from a CPU of its own, the one after its answers' CPU (default N: where they are built).");
module_param(aoe_copy_spread, bool, 0644);
MODULE_PARM_DESC(aoe_copy_spread, "Copy read data into the request and end it on another CPU than the answer's (default N: on the answer's).");

/* indexed by enum aoe_flush_mode; "default" is a target's, not a choice here */
static const char *const flush_modes[] = { "", "auto", "always", "never" };

static int set_flush(const char *val, const struct kernel_param *kp)
{
	int n = sysfs_match_string(flush_modes, val);

	if (n <= AOE_FLUSH_MODE_DEFAULT) {
		pr_err("aoe_flush: '%.*s' rejected: must be auto, always or never\n",
		       (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(aoe_flush, n);
	aoe_target_flush_param_changed();
	return 0;
}

static int get_flush(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 flush_modes[READ_ONCE(aoe_flush)]);
}

static const struct kernel_param_ops flush_ops = {
	.set = set_flush, .get = get_flush,
};

module_param_cb(aoe_flush, &flush_ops, NULL, 0644);
MODULE_PARM_DESC(aoe_flush, "When a disk declares a volatile write cache and sends FLUSH CACHE: auto (when IDENTIFY says the cache is on, default), always, never.");

/*
 * A testing aid, not in sysfs (permission 0: set at load time only), not
 * listed by modinfo (no description), not for production:
 * AOE_TEST_LATE_TICKS makes every timer tick count as late,
 * AOE_TEST_NO_DEADLINE turns the engine's own deadlines off so that only the
 * blk-mq timeout ends requests to a dead target, AOE_TEST_SLOW_TEARDOWN
 * waits 3 s between unlinking a target and deleting its disk,
 * AOE_TEST_SPLIT_NOMEM fails every other allocation of a split frame's tail
 * as GFP_ATOMIC may (aoe(4), TESTING).
 */
module_param_cb(aoe_test_faults, &param_ops_uint, &aoe_test_faults, 0);

/*
 * Normalise @list (names separated by spaces, commas, tabs, newlines) into
 * @out (AOE_IFLIST_MAX bytes), single spaces. 0 or -EINVAL.
 */
static int parse_iflist(const char *list, char *out)
{
	const size_t cap = AOE_IFLIST_MAX;
	const char *p = list;
	size_t n = 0;

	while (*p) {
		size_t len;

		while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " ,\t\n");
		if (len >= IFNAMSIZ) {
			pr_err("aoe_iflist: interface name '%.*s' longer than %d\n",
			       (int)len, p, IFNAMSIZ - 1);
			return -EINVAL;
		}
		if (n + len + 2 > cap) {
			pr_err("aoe_iflist: longer than %zu characters\n",
			       cap - 1);
			return -EINVAL;
		}
		if (n)
			out[n++] = ' ';
		memcpy(out + n, p, len);
		n += len;
		p += len;
	}
	out[n] = '\0';
	return 0;
}

/* Parse @list and store it as @net's (@inherit: follow aoe_iflist again). */
static int set_iflist_of(struct net *net, const char *list, bool inherit)
{
	struct aoe_iflist *l = NULL, *old;
	struct aoe_iflist __rcu **slot;
	struct aoe_net_params *np;
	int ret;

	if (!inherit) {
		l = kmalloc(struct_size(l, names, AOE_IFLIST_MAX), GFP_KERNEL);
		if (!l)
			return -ENOMEM;
		ret = parse_iflist(list, l->names);
		if (ret) {
			kfree(l);
			return ret;
		}
	}
	if (net_eq(net, &init_net)) {
		slot = &init_iflist;
	} else {
		np = net_generic(net, aoe_net_id);
		slot = &np->iflist;
	}
	mutex_lock(&iflist_mutex);
	old = rcu_replace_pointer(*slot, l, lockdep_is_held(&iflist_mutex));
	mutex_unlock(&iflist_mutex);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/*
 * Validate a space/comma/newline separated list of interface names and
 * store it normalised (single spaces) as @net's list. Returns 0, -EINVAL or
 * -ENOMEM. Process context.
 */
int aoe_params_set_iflist(struct net *net, const char *list)
{
	return set_iflist_of(net, list, false);
}

/* @net (not the initial namespace) follows aoe_iflist again. */
int aoe_params_inherit_iflist(struct net *net)
{
	return set_iflist_of(net, "", true);
}

/* @net's list in force, NULL for every interface. Under rcu_read_lock(). */
static const struct aoe_iflist *iflist_of(const struct net *net,
					  bool *inherited)
{
	const struct aoe_net_params *np;
	const struct aoe_iflist *l = NULL;

	*inherited = false;
	if (!net_eq(net, &init_net)) {
		np = net_generic(net, aoe_net_id);
		l = rcu_dereference(np->iflist);
		*inherited = !l;
	}
	return l ? l : rcu_dereference(init_iflist);
}

bool aoe_params_get_iflist(const struct net *net, char *buf, size_t len)
{
	const struct aoe_iflist *l;
	bool inherited;

	rcu_read_lock();
	l = iflist_of(net, &inherited);
	strscpy(buf, l ? l->names : "", len);
	rcu_read_unlock();
	return inherited;
}

bool aoe_netns;
module_param(aoe_netns, bool, 0444);
MODULE_PARM_DESC(aoe_netns,
		 "Use interfaces in other network namespaces than the initial one (owned by the initial user namespace only; default 0)");

bool aoe_params_net_allowed(const struct net *net)
{
	return net_eq(net, &init_net) ||
	       (aoe_netns && net->user_ns == &init_user_ns);
}

bool aoe_params_if_allowed(const struct net *net, const char *ifname)
{
	size_t want = strnlen(ifname, IFNAMSIZ);
	const struct aoe_iflist *l;
	bool ok = false, inherited;
	const char *p;

	rcu_read_lock();
	l = iflist_of(net, &inherited);
	p = l ? l->names : "";
	if (!*p)
		ok = true;
	while (*p && !ok) {
		size_t len = strcspn(p, " ");

		if (len == want && !memcmp(p, ifname, len))
			ok = true;
		p += len;
		while (*p == ' ')
			p++;
	}
	rcu_read_unlock();
	return ok;
}

static int set_iflist(const char *val, const struct kernel_param *kp)
{
	return aoe_params_set_iflist(&init_net, val);
}

static int get_iflist(char *buf, const struct kernel_param *kp)
{
	const struct aoe_iflist *l;
	int n;

	rcu_read_lock();
	l = rcu_dereference(init_iflist);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", l ? l->names : "");
	rcu_read_unlock();
	return n;
}

/* rmmod, or a failed load: nothing reads the list any more */
static void free_iflist(void *arg)
{
	kfree(rcu_dereference_protected(init_iflist, 1));
	RCU_INIT_POINTER(init_iflist, NULL);
}

static const struct kernel_param_ops iflist_ops = {
	.set = set_iflist, .get = get_iflist, .free = free_iflist,
};

module_param_cb(aoe_iflist, &iflist_ops, NULL, 0600);
MODULE_PARM_DESC(aoe_iflist, "Interfaces AoE may use, space separated (default: all).");

static void __net_exit aoe_net_exit(struct net *net)
{
	struct aoe_net_params *np = net_generic(net, aoe_net_id);

	/* the namespace's devices are gone: no reader is left */
	kfree(rcu_dereference_protected(np->iflist, 1));
	RCU_INIT_POINTER(np->iflist, NULL);
}

static struct pernet_operations aoe_net_ops = {
	.exit = aoe_net_exit,
	.id = &aoe_net_id,
	.size = sizeof(struct aoe_net_params),
};

/* The per-namespace lists; first of the init steps, last to go. */
int aoe_params_init(void)
{
	return register_pernet_subsys(&aoe_net_ops);
}

void aoe_params_uninit(void)
{
	unregister_pernet_subsys(&aoe_net_ops);
}
