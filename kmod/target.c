// SPDX-License-Identifier: GPL-2.0
/*
 * The target table: every shelf.slot that answered Query Config, and per
 * target every path (local interface x target MAC) with what the target
 * announced on it. Updated from the receive path (softirq) under a BH-safe
 * spinlock; read by netlink under the same lock.
 */
#include <linux/atomic.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "netlink.h"
#include "target.h"

DEFINE_SPINLOCK(aoe_tgt_lock);
LIST_HEAD(aoe_tgt_list);
u32 aoe_tgt_generation = 1;
unsigned int aoe_tgt_count;

static atomic64_t aoe_drops_total[__AOE_DROP_MAX];

u64 aoe_drops_read(enum aoe_drop_reason reason)
{
	return atomic64_read(&aoe_drops_total[reason]);
}

struct aoe_target *aoe_target_find(u16 shelf, u8 slot)
{
	struct aoe_target *t;

	lockdep_assert_held(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node)
		if (t->shelf == shelf && t->slot == slot)
			return t;
	return NULL;
}

static struct aoe_path *path_find(struct aoe_target *t, int ifindex,
				  const u8 *mac)
{
	struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (p->ifindex == ifindex && ether_addr_equal(p->mac, mac))
			return p;
	return NULL;
}

/* The payload the target's device can use: the smallest over usable paths. */
u32 aoe_target_payload(const struct aoe_target *t)
{
	const struct aoe_path *p;
	u32 min = 0;

	list_for_each_entry(p, &t->paths, node) {
		if (p->state != AOE_PATH_STATE_UP || !p->payload)
			continue;
		if (!min || p->payload < min)
			min = p->payload;
	}
	return min;
}

void aoe_drop(enum aoe_drop_reason reason, struct net_device *dev,
	      const struct aoe_frame *f)
{
	struct aoe_target *t;
	struct aoe_path *p;

	if (reason <= AOE_DROP_PAD || reason > AOE_DROP_MAX)
		return;
	atomic64_inc(&aoe_drops_total[reason]);
	/* attribute only frames whose addressing already passed validation */
	if (!f || !dev)
		return;
	switch (reason) {
	case AOE_DROP_SHORT:
	case AOE_DROP_VERSION:
	case AOE_DROP_NOT_RESPONSE:
	case AOE_DROP_RESERVED_FLAGS:
	case AOE_DROP_BAD_ADDRESS:
	case AOE_DROP_IFACE:
	case AOE_DROP_NO_TARGET:
		return;
	default:
		break;
	}
	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (t) {
		t->cnt.drops[reason]++;
		p = path_find(t, dev->ifindex, f->src);
		if (p)
			p->cnt.drops[reason]++;
	}
	spin_unlock_bh(&aoe_tgt_lock);
}

static void path_set_link(struct aoe_path *p, struct net_device *dev)
{
	p->mtu = dev->mtu;
	p->payload = aoe_payload_for_mtu(dev->mtu, p->maxsect, 0);
	strscpy(p->ifname, dev->name, sizeof(p->ifname));
}

/*
 * A Query Config response (solicited or an announcement) from a target:
 * create or refresh the target and the path it arrived on.
 */
void aoe_target_config_rx(struct net_device *dev, const struct aoe_frame *f)
{
	struct aoe_target *t;
	struct aoe_path *p;
	bool t_new = false, p_new = false;
	u32 old_payload;

	spin_lock_bh(&aoe_tgt_lock);
	t = aoe_target_find(f->shelf, f->slot);
	if (!t) {
		if (aoe_tgt_count >= AOE_MAX_TARGETS) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_TOO_MANY, NULL, NULL);
			net_warn_ratelimited("target table full (%d): e%u.%u ignored\n",
					     AOE_MAX_TARGETS, f->shelf, f->slot);
			return;
		}
		t = kzalloc(sizeof(*t), GFP_ATOMIC);
		if (!t) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		t->shelf = f->shelf;
		t->slot = f->slot;
		t->state = AOE_TARGET_STATE_INIT;
		INIT_LIST_HEAD(&t->paths);
		list_add_tail(&t->node, &aoe_tgt_list);
		aoe_tgt_count++;
		aoe_tgt_generation++;
		t_new = true;
	}
	old_payload = aoe_target_payload(t);

	p = path_find(t, dev->ifindex, f->src);
	if (!p) {
		if (t->npaths >= AOE_MAX_PATHS) {
			t->cnt.drops[AOE_DROP_TOO_MANY]++;
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_TOO_MANY, NULL, NULL);
			return;
		}
		p = kzalloc(sizeof(*p), GFP_ATOMIC);
		if (!p) {
			spin_unlock_bh(&aoe_tgt_lock);
			aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
			return;
		}
		p->ifindex = dev->ifindex;
		ether_addr_copy(p->mac, f->src);
		list_add_tail(&p->node, &t->paths);
		t->npaths++;
		aoe_tgt_generation++;
		p_new = true;
	}
	p->bufcnt = f->cfg.bufcnt;
	p->fwver = f->cfg.fwver;
	p->maxsect = f->cfg.maxsect;
	path_set_link(p, dev);
	if (p->state != AOE_PATH_STATE_UP) {
		p->state = AOE_PATH_STATE_UP;
		if (!p_new && !t_new)
			aoe_netlink_notify(AOE_CMD_PATH_UP, t, p);
	}
	p->last_rx = jiffies;
	p->cnt.frames_received++;
	t->cnt.frames_received++;
	t->last_rx = p->last_rx;
	t->cfglen = f->cfg.cfglen;
	memcpy(t->config, f->cfg.cfg, f->cfg.cfglen);

	if (t_new)
		aoe_netlink_notify(AOE_CMD_TARGET_NEW, t, NULL);
	else if (p_new)
		aoe_netlink_notify(AOE_CMD_PATH_UP, t, p);
	if (!t_new && old_payload != aoe_target_payload(t))
		aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
	spin_unlock_bh(&aoe_tgt_lock);

	if (t_new)
		pr_info("e%u.%u: new target on %s (%pM), buffer count %u, firmware %04x\n",
			f->shelf, f->slot, dev->name, f->src, f->cfg.bufcnt,
			f->cfg.fwver);
}

/* ATA responses: no I/O is issued yet, so none can match an outstanding tag. */
void aoe_target_ata_rx(struct net_device *dev, const struct aoe_frame *f)
{
	bool known;

	spin_lock_bh(&aoe_tgt_lock);
	known = aoe_target_find(f->shelf, f->slot);
	spin_unlock_bh(&aoe_tgt_lock);
	aoe_drop(known ? AOE_DROP_NO_TAG : AOE_DROP_NO_TARGET, dev, f);
}

static void path_free(struct aoe_target *t, struct aoe_path *p)
{
	list_del(&p->node);
	t->npaths--;
	aoe_tgt_generation++;
	kfree(p);
}

/* Link state, MTU and interface removal, from the netdevice notifier. */
void aoe_target_netdev_event(struct net_device *dev, unsigned long event)
{
	struct aoe_path *p, *tmp;
	struct aoe_target *t;
	u32 old_payload;

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry(t, &aoe_tgt_list, node) {
		old_payload = aoe_target_payload(t);
		list_for_each_entry_safe(p, tmp, &t->paths, node) {
			if (p->ifindex != dev->ifindex)
				continue;
			switch (event) {
			case NETDEV_UNREGISTER:
				p->state = AOE_PATH_STATE_DOWN;
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
				path_free(t, p);
				break;
			case NETDEV_DOWN:
			case NETDEV_CHANGE:
				if (netif_running(dev) && netif_carrier_ok(dev))
					break;
				if (p->state == AOE_PATH_STATE_DOWN)
					break;
				p->state = AOE_PATH_STATE_DOWN;
				aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
				break;
			case NETDEV_CHANGEMTU:
			case NETDEV_CHANGENAME:
				path_set_link(p, dev);
				break;
			default:
				break;
			}
		}
		if (old_payload != aoe_target_payload(t))
			aoe_netlink_notify(AOE_CMD_PAYLOAD_CHANGED, t, NULL);
	}
	spin_unlock_bh(&aoe_tgt_lock);
}

static void target_free(struct aoe_target *t)
{
	struct aoe_path *p, *tmp;

	list_for_each_entry_safe(p, tmp, &t->paths, node)
		path_free(t, p);
	list_del(&t->node);
	aoe_tgt_count--;
	aoe_tgt_generation++;
	kfree(t);
}

/*
 * Forget targets: all == false only those that are down (or never came up
 * and have no usable path), all == true every one. shelf/slot < 0: any.
 * Returns how many were removed.
 */
int aoe_target_flush(bool all, int shelf, int slot)
{
	struct aoe_target *t, *tmp;
	int n = 0;

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry_safe(t, tmp, &aoe_tgt_list, node) {
		if (shelf >= 0 && (t->shelf != shelf || t->slot != slot))
			continue;
		if (!all && t->state != AOE_TARGET_STATE_DOWN &&
		    aoe_target_payload(t))
			continue;
		aoe_netlink_notify(AOE_CMD_TARGET_GONE, t, NULL);
		target_free(t);
		n++;
	}
	spin_unlock_bh(&aoe_tgt_lock);
	return n;
}

int aoe_target_init(void)
{
	int i;

	for (i = 0; i < __AOE_DROP_MAX; i++)
		atomic64_set(&aoe_drops_total[i], 0);
	return 0;
}

void aoe_target_uninit(void)
{
	struct aoe_target *t, *tmp;

	spin_lock_bh(&aoe_tgt_lock);
	list_for_each_entry_safe(t, tmp, &aoe_tgt_list, node)
		target_free(t);
	spin_unlock_bh(&aoe_tgt_lock);
}
