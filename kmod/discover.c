// SPDX-License-Identifier: GPL-2.0
/*
 * Discovery: a broadcast Query Config at load, on request (netlink,
 * /dev/etherd/discover) and every AOE_DISCOVER_INTERVAL_SECS seconds.
 * Answers and unsolicited announcements go to target.c. The load-time and
 * periodic broadcasts go out on the usable interfaces of every network
 * namespace AoE may use (for_each_net_rcu), a requested one too, or only
 * on those of the namespace a netlink request names (AOE_A_NETNS_FD).
 *
 * The load-time broadcast is the one netif asks for with aoe_discover_now()
 * after its receive hook is registered: the Query Config sent when this
 * step starts its worker, and those sent for the NETDEV_UP events replayed
 * when netif registers its notifier, leave before there is a receive hook,
 * and a target answering quickly was not seen until the next periodic
 * broadcast, 60 s later.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <linux/workqueue.h>

#include "aoe_codec.h"
#include "discover.h"
#include "netif.h"
#include "params.h"
#include "target.h"

#define AOE_PROBE_INTERVAL_MS 1000

static struct delayed_work aoe_discover_work;
static struct delayed_work aoe_probe_work;
static atomic_t aoe_discover_tag = ATOMIC_INIT(0);

/* Never 0: a config response with tag 0 is an announcement (target.c). */
static u32 next_tag(void)
{
	u32 tag;

	do
		tag = (u32)atomic_inc_return(&aoe_discover_tag) & ~AOE_TAG_USER;
	while (!tag);
	return tag;
}

static bool send_qc(struct net_device *dev, const u8 *dst, u16 shelf, u8 slot)
{
	struct sk_buff *skb;

	skb = aoe_netif_alloc_skb(dev, ETH_ZLEN, GFP_ATOMIC);
	if (!skb)
		return false;
	aoe_encode_qc(skb_mac_header(skb), dst, dev->dev_addr, shelf, slot,
		      next_tag());
	aoe_netif_xmit(skb);
	return true;
}

static int discover_net(struct net *net, const char *ifname)
{
	struct net_device *dev;
	int n = 0;

	for_each_netdev_rcu(net, dev) {
		if (ifname && strcmp(ifname, dev->name))
			continue;
		if (!aoe_netif_usable(dev) || !netif_running(dev))
			continue;
		if (send_qc(dev, dev->broadcast, AOE_SHELF_ANY, AOE_SLOT_ANY))
			n++;
	}
	return n;
}

int aoe_discover_send(struct net *net, const char *ifname)
{
	int n = 0;

	rcu_read_lock();
	if (net)
		n = discover_net(net, ifname);
	else
		for_each_net_rcu(net)
			if (aoe_params_net_allowed(net))
				n += discover_net(net, ifname);
	rcu_read_unlock();
	return n;
}

int aoe_discover_target(u16 shelf, u8 slot)
{
	struct aoe_target *t;
	struct aoe_path *p;
	int n = -ENOENT;

	rcu_read_lock();
	t = aoe_target_find(shelf, slot);
	if (t) {
		spin_lock_bh(&t->lock);
		if (t->removed)	/* unlinked after the lookup: its paths go */
			goto unlock;
		n = 0;
		list_for_each_entry(p, &t->paths, node) {
			struct net_device *dev;

			dev = dev_get_by_index_rcu(read_pnet(&p->net),
						   p->ifindex);
			if (dev && aoe_netif_usable(dev) &&
			    send_qc(dev, p->mac, shelf, slot))
				n++;
		}
unlock:
		spin_unlock_bh(&t->lock);
	}
	rcu_read_unlock();
	return n;
}

static void aoe_discover_fn(struct work_struct *work)
{
	aoe_discover_send(NULL, NULL);
	schedule_delayed_work(&aoe_discover_work,
			      AOE_DISCOVER_INTERVAL_SECS * HZ);
}

/*
 * Paths that stopped carrying I/O (timeouts) are probed with a unicast Query
 * Config every second; the answer brings them back (target.c). A target
 * that is up but has no path left (its interfaces were unregistered: moved
 * to another network namespace, or deleted) gets a broadcast on every
 * namespace instead, every second until a path answers or it goes down
 * (aoe_deadsecs): the broadcast at the moved interface's NETDEV_UP may go
 * before the network passes frames (a bridge port still blocking). A target
 * a frame of which failed its deadline while it answered others (timers.c,
 * lost_since) is probed on its up paths too: a live one answers (and is
 * not taken for dead when idle), a dead one goes down at its deadline.
 */
static void aoe_probe_fn(struct work_struct *work)
{
	struct aoe_target *t;
	struct aoe_path *p;
	bool orphans = false;

	rcu_read_lock();
	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		spin_lock(&t->lock);
		if (!t->npaths && t->state == AOE_TARGET_STATE_UP)
			orphans = true;
		list_for_each_entry(p, &t->paths, node) {
			struct net_device *dev;

			if (p->state != AOE_PATH_STATE_DOWN &&
			    !(t->lost_since && p->state == AOE_PATH_STATE_UP))
				continue;
			dev = dev_get_by_index_rcu(read_pnet(&p->net),
						   p->ifindex);
			if (dev && aoe_netif_usable(dev) && netif_carrier_ok(dev))
				send_qc(dev, p->mac, t->shelf, t->slot);
		}
		spin_unlock(&t->lock);
	}
	spin_unlock_bh(&aoe_tgt_lock);
	rcu_read_unlock();
	if (orphans)
		aoe_discover_send(NULL, NULL);
	aoe_target_recheck_due();
	schedule_delayed_work(&aoe_probe_work,
			      msecs_to_jiffies(AOE_PROBE_INTERVAL_MS));
}

void aoe_discover_now(void)
{
	mod_delayed_work(system_wq, &aoe_discover_work, 0);
}

int aoe_discover_init(void)
{
	INIT_DELAYED_WORK(&aoe_discover_work, aoe_discover_fn);
	INIT_DELAYED_WORK(&aoe_probe_work, aoe_probe_fn);
	schedule_delayed_work(&aoe_discover_work, 0);
	schedule_delayed_work(&aoe_probe_work,
			      msecs_to_jiffies(AOE_PROBE_INTERVAL_MS));
	return 0;
}

void aoe_discover_uninit(void)
{
	cancel_delayed_work_sync(&aoe_probe_work);
	cancel_delayed_work_sync(&aoe_discover_work);
}
