// SPDX-License-Identifier: GPL-2.0
/*
 * Network interfaces: the ETH_P_AOE receive hook, transmit, and the
 * netdevice notifier that follows link state, MTU and removal.
 * Every received frame is validated by the codec before anything trusts it.
 * An ATA answer may be processed on its target's CPU instead (steer.c,
 * aoe_netif_rx_steered(): the same checks and decoding, there).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "aoe_codec.h"
#include "ata.h"
#include "ctl.h"
#include "discover.h"
#include "netif.h"
#include "params.h"
#include "target.h"

bool aoe_netif_usable(const struct net_device *dev)
{
	return dev->type == ARPHRD_ETHER && !(dev->flags & IFF_LOOPBACK) &&
	       (dev->flags & IFF_UP) &&
	       aoe_params_net_allowed(dev_net(dev)) &&
	       aoe_params_if_allowed(dev_net(dev), dev->name);
}

struct sk_buff *aoe_netif_alloc_skb(struct net_device *dev, unsigned int len,
				    gfp_t gfp)
{
	unsigned int hr = LL_RESERVED_SPACE(dev);
	struct sk_buff *skb;

	if (len < ETH_ZLEN)
		len = ETH_ZLEN;
	skb = alloc_skb(hr + len + dev->needed_tailroom, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, hr);
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	memset(skb_put(skb, len), 0, len);
	skb->dev = dev;
	skb->protocol = htons(ETH_P_AOE);
	skb->priority = 0;
	return skb;
}

void aoe_netif_xmit(struct sk_buff *skb)
{
	dev_queue_xmit(skb);
}

/*
 * A frame the receive hook checked: decoded and handed on. @may_steer: an
 * ATA answer may go to its target's CPU (steer.c) rather than be processed
 * here. Consumes @skb.
 */
static void aoe_netif_process(struct sk_buff *skb, struct net_device *dev,
			      bool may_steer)
{
	struct aoe_frame f;
	bool matched;
	int ret;

	ret = aoe_decode_response(skb_mac_header(skb),
				  skb_headlen(skb) + ETH_HLEN,
				  skb->len + ETH_HLEN, &f);
	if (ret && ret != -AOE_DROP_ERROR) {
		aoe_drop(-ret, dev, &f);
		goto out;
	}
	if (!ether_addr_equal(f.dst, dev->dev_addr) &&
	    !is_broadcast_ether_addr(f.dst)) {
		aoe_drop(AOE_DROP_BAD_ADDRESS, NULL, NULL);
		goto out;
	}
	if (aoe_tag_is_user(f.tag)) {
		aoe_drop(AOE_DROP_USER_TAG, dev, &f);
		goto out;
	}

	switch (f.cmd) {
	case AOE_CMD_CFG:
		/* an answer to a control request (ctl.c), maybe also news */
		matched = aoe_ctl_rx(dev, &f);
		if (!ret)
			aoe_target_config_rx(dev, &f);
		else if (!matched)
			aoe_drop(AOE_DROP_ERROR, dev, &f);
		break;
	case AOE_CMD_MASK:
	case AOE_CMD_RESERVE:
		/* only ever answers to control requests */
		if (!aoe_ctl_rx(dev, &f))
			aoe_drop(AOE_DROP_NO_TAG, dev, &f);
		break;
	case AOE_CMD_ATA:
		if (aoe_ata_rx(dev, &f, ret == -AOE_DROP_ERROR, skb, may_steer))
			return;		/* queued to its target's CPU */
		break;
	}
out:
	consume_skb(skb);
}

static int aoe_netif_rcv(struct sk_buff *skb, struct net_device *dev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	unsigned int need;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;

	/* frames for other hosts and our own transmissions are not ours */
	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_LOOPBACK ||
	    skb->pkt_type == PACKET_OUTGOING)
		goto out;
	if (!aoe_netif_usable(dev)) {
		aoe_drop(AOE_DROP_IFACE, NULL, NULL);
		goto out;
	}
	if (skb_mac_header_len(skb) != ETH_HLEN ||
	    !pskb_may_pull(skb, AOE_HDR_LEN - ETH_HLEN)) {
		aoe_drop(AOE_DROP_SHORT, NULL, NULL);
		goto out;
	}
	/* command byte decides how much must be linear */
	switch (skb->data[AOE_OFF_CMD - ETH_HLEN]) {
	case AOE_CMD_CFG:
		need = AOE_CFG_HDR_LEN + AOE_CONFIG_MAXLEN - ETH_HLEN;
		break;
	case AOE_CMD_MASK:
	case AOE_CMD_RESERVE:
		need = skb->len;	/* the whole list: at most an MTU */
		break;
	default:
		need = AOE_ATA_HDR_LEN - ETH_HLEN;
	}
	if (!pskb_may_pull(skb, min(need, skb->len))) {
		aoe_drop(AOE_DROP_NO_MEMORY, NULL, NULL);
		goto out;
	}

	aoe_netif_process(skb, dev, true);
	return NET_RX_SUCCESS;
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

void aoe_netif_rx_steered(struct sk_buff *skb)
{
	bool usable;

	/* the interface may have left aoe_iflist while it waited */
	rcu_read_lock();
	usable = aoe_netif_usable(skb->dev);
	rcu_read_unlock();
	if (!usable) {
		aoe_drop(AOE_DROP_IFACE, NULL, NULL);
		consume_skb(skb);
		return;
	}
	aoe_netif_process(skb, skb->dev, false);
}

static struct packet_type aoe_packet_type __read_mostly = {
	.type = cpu_to_be16(ETH_P_AOE),
	.func = aoe_netif_rcv,
};

static int aoe_netif_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGENAME:
		aoe_target_netdev_event(dev, event);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block aoe_netif_notifier = {
	.notifier_call = aoe_netif_event,
};

int aoe_netif_init(void)
{
	int ret;

	ret = register_netdevice_notifier(&aoe_netif_notifier);
	if (ret)
		return ret;
	dev_add_pack(&aoe_packet_type);
	/* the Query Config sent so far could be answered before this hook */
	aoe_discover_now();
	return 0;
}

void aoe_netif_uninit(void)
{
	/* dev_remove_pack() waits for receivers in flight (synchronize_net) */
	dev_remove_pack(&aoe_packet_type);
	unregister_netdevice_notifier(&aoe_netif_notifier);
}
