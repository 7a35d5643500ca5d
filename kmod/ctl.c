// SPDX-License-Identifier: GPL-2.0
/*
 * Control requests (AOE_CMD_CTL, uapi/aoe_netlink.h): a Query Config
 * sub-command, a MAC Mask List or a Reserve/Release request sent to one
 * target over the module's own paths, answered asynchronously.
 *
 * The doit never waits for the network: genl_rcv() holds cb_lock (an
 * rwsem every genetlink family (un)registration takes) across it. It
 * checks the request, takes a snapshot of the target's paths (every path
 * for a read, one per target port for a change), checks the frame against
 * each path's MTU, replies with the number of results to come, puts the
 * request on aoe_ctl_list and transmits. Answers (softirq, aoe_ctl_rx())
 * and the tick (a timer, every AOE_CTL_TICK_MS while requests are pending)
 * settle the paths; an unanswered path is sent again every
 * AOE_CTL_RETRY_MS with a fresh tag, and the answer to any of its
 * transmissions (copies) counts. When every path is settled or the
 * deadline (at most AOE_CTL_TIMEOUT_MS_MAX) has passed, the request leaves
 * the list and one AOE_CMD_CTL_RESULT message per path is unicast to the
 * requester's port, in the requester's network namespace. A request goes
 * out on every path, whatever the namespace of its interface.
 * A requester that closes its socket takes its requests with it
 * (NETLINK_URELEASE: ctl_urelease()); a result the socket cannot take is
 * lost, nothing else. At most AOE_CTL_MAX_PENDING requests exist at once,
 * each for at most 10 s.
 *
 * Copies of a change. A read settles with the first answer to any copy. A
 * change (any other sub-command) is not idempotent on the target: the
 * first copy may take, and a later copy is then refused (the reservation
 * or mask set by the first one excludes the sender) or reports another
 * list. So a change settles with the first successful answer to any copy
 * (no E flag, and no mask error): that copy did what was asked. An
 * unsuccessful answer is kept but settles the path only once every copy
 * sent has been answered; no further copy goes out after it (the target
 * has it), and at the deadline the kept answer is the result, not a
 * timeout. The result's RTT is the answered copy's.
 *
 * Tags are 31 random bits (bit 31 clear, as every kernel tag), unique
 * among the tags of every copy of the pending requests. An answer counts
 * only with a matching tag, AoE command, shelf.slot, local interface and
 * target MAC; a known tag from elsewhere is dropped as
 * AOE_DROP_WRONG_PATH. Every count and length of an answer was checked by
 * aoe_decode_response() against the frame, and is checked again against
 * what is copied here (into the path's own buffer: nothing is allocated
 * after the doit, so an answer is never lost to memory).
 *
 * Locking: aoe_ctl_lock (BH-safe spinlock) protects aoe_ctl_list, every
 * request on it, aoe_ctl_pending and aoe_ctl_stopping. It is never held
 * together with aoe_tgt_lock or a target's lock (the doit takes the
 * snapshot under the target's lock first and drops it). Frames are built
 * under aoe_ctl_lock (GFP_ATOMIC) and transmitted after it is dropped; results are built and sent after
 * the request left the list, which makes its sender its only owner.
 *
 * Lifetime: the init/exit table (main.c) inits this after the netlink
 * family is registered and uninits it before the family is unregistered
 * (the tick sends results through the family: it must be stopped first)
 * and after the receive hook is removed (netif: no answer left). Until
 * aoe_ctl_init() and from aoe_ctl_uninit() on, aoe_ctl_stopping refuses
 * new requests (-ESHUTDOWN), so nothing is pending when a failed init
 * unwinds past this step. Uninit sets it (a doit still running then frees
 * its request itself, and the timer does not re-arm), unregisters the
 * notifier, stops the timer and frees what is left without results: the
 * module goes. The timer is defined statically: nothing to set up.
 */
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "ctl.h"
#include "netif.h"
#include "netlink.h"
#include "target.h"
#include "uapi/aoe_netlink.h"

#define AOE_CTL_TICK_MS		100
#define AOE_CTL_MAX_PENDING	64
/* the longest request: 255 mask directives */
#define AOE_CTL_DATA_MAX	(255 * AOE_MASK_DIR_LEN)
/* the longest list in an answer: 255 MACs (a config string is shorter) */
#define AOE_CTL_ANSWER_MAX	(255 * ETH_ALEN)
/* copies of a request on one path: one per AOE_CTL_RETRY_MS, the longest timeout */
#define AOE_CTL_COPIES		(AOE_CTL_TIMEOUT_MS_MAX / AOE_CTL_RETRY_MS + 1)

struct aoe_ctl_path {
	/*
	 * The local interface's namespace, with a (tracked) reference: the
	 * path it was taken from may go, and its namespace with it, while
	 * the request waits. NULL: it was going already (NO_DEVICE).
	 */
	struct net *net;
	netns_tracker ns_tracker;
	int ifindex;
	char ifname[IFNAMSIZ];
	u8 dst[ETH_ALEN];	/* target port */
	u8 src[ETH_ALEN];	/* local interface, at the last transmission */
	u32 mtu;
	u32 tag[AOE_CTL_COPIES];	/* of each copy sent, [0, tries) */
	ktime_t sent[AOE_CTL_COPIES];
	u32 answered;		/* bit i: copy i was answered */
	unsigned long next;	/* jiffies: when to send again */
	u32 tries;		/* copies sent */
	u32 status;		/* enum aoe_ctl_status, UNSPEC: pending */
	bool kept;		/* a change's unsuccessful answer is below */
	u8 aoe_error;
	u32 rtt_us;
	/* the answer */
	u16 bufcnt;
	u16 fwver;
	u8 maxsect;
	u8 aoever;
	u8 merror;
	u32 count;
	u16 alen;
	u8 answer[AOE_CTL_ANSWER_MAX];	/* config string or MACs */
};

struct aoe_ctl_req {
	struct list_head node;
	/*
	 * The requester's namespace: no reference, its socket holds one and
	 * takes the request with it when it goes (ctl_urelease())
	 */
	struct net *net;
	u32 portid;
	u32 seq;
	u32 cookie;
	u16 shelf;
	u8 slot;
	u8 cmd;
	u8 sub;
	unsigned long deadline;	/* jiffies */
	unsigned int n;		/* paths */
	unsigned int left;	/* not settled yet */
	struct aoe_ctl_path path[AOE_MAX_PATHS];
	u16 dlen;
	u8 data[AOE_CTL_DATA_MAX];
};

static DEFINE_SPINLOCK(aoe_ctl_lock);
static LIST_HEAD(aoe_ctl_list);
static unsigned int aoe_ctl_pending;	/* on the list, or being set up */
/* not started yet, or stopping: no request is taken, the timer stays off */
static bool aoe_ctl_stopping = true;
static void ctl_tick(struct timer_list *timer);
static DEFINE_TIMER(aoe_ctl_timer, ctl_tick);

static void ctl_arm(void)
{
	if (!aoe_ctl_stopping && !timer_pending(&aoe_ctl_timer))
		mod_timer(&aoe_ctl_timer,
			  jiffies + msecs_to_jiffies(AOE_CTL_TICK_MS));
}

static bool tag_used(u32 tag)
{
	struct aoe_ctl_req *r;
	unsigned int i, k;

	list_for_each_entry(r, &aoe_ctl_list, node)
		for (i = 0; i < r->n; i++)
			for (k = 0; k < r->path[i].tries; k++)
				if (r->path[i].tag[k] == tag)
					return true;
	return false;
}

/* A fresh tag, unique among pending requests. Caller holds aoe_ctl_lock. */
static u32 ctl_new_tag(void)
{
	u32 tag = 0;
	int i;

	for (i = 0; i < 16; i++) {
		tag = aoe_tag_from_random(get_random_u32());
		if (!tag_used(tag))
			break;
	}
	return tag;
}

static size_t ctl_encode(const struct aoe_ctl_req *r,
			 const struct aoe_ctl_path *p, u32 tag, u8 *buf,
			 size_t cap)
{
	switch (r->cmd) {
	case AOE_CMD_CFG:
		return aoe_encode_cfg(buf, cap, p->dst, p->src, r->shelf,
				      r->slot, tag, r->sub, r->data, r->dlen);
	case AOE_CMD_MASK:
		return aoe_encode_mask(buf, cap, p->dst, p->src, r->shelf,
				       r->slot, tag, r->sub, r->data,
				       r->dlen / AOE_MASK_DIR_LEN);
	case AOE_CMD_RESERVE:
		return aoe_encode_resv(buf, cap, p->dst, p->src, r->shelf,
				       r->slot, tag, r->sub, r->data,
				       r->dlen / ETH_ALEN);
	}
	return 0;
}

static void settle(struct aoe_ctl_req *r, struct aoe_ctl_path *p, u32 status)
{
	if (p->status)
		return;
	p->status = status;
	r->left--;
}

/*
 * (Re)transmit path @p of @r with a fresh tag onto @q. Caller holds RCU and
 * aoe_ctl_lock. A path whose interface is gone or down, or whose MTU
 * shrank below the frame since, settles (NO_DEVICE, TOO_BIG). A path with
 * a kept answer, or out of copies, only waits (for its deadline).
 */
static void ctl_send(struct aoe_ctl_req *r, struct aoe_ctl_path *p,
		     struct sk_buff_head *q)
{
	size_t len = aoe_ctl_frame_len(r->cmd, r->dlen);
	struct net_device *dev;
	struct sk_buff *skb;
	u32 tag;

	p->next = jiffies + msecs_to_jiffies(AOE_CTL_RETRY_MS);
	if (p->kept || p->tries >= AOE_CTL_COPIES)
		return;
	dev = p->net ? dev_get_by_index_rcu(p->net, p->ifindex) : NULL;
	if (!dev || !aoe_netif_usable(dev) || !netif_running(dev)) {
		settle(r, p, AOE_CTL_STATUS_NO_DEVICE);
		return;
	}
	if (!aoe_ctl_fits_mtu(len, dev->mtu)) {
		p->mtu = dev->mtu;
		settle(r, p, AOE_CTL_STATUS_TOO_BIG);
		return;
	}
	skb = aoe_netif_alloc_skb(dev, len, GFP_ATOMIC);
	if (!skb)
		return;		/* the tick tries again */
	tag = ctl_new_tag();
	ether_addr_copy(p->src, dev->dev_addr);
	if (!ctl_encode(r, p, tag, skb_mac_header(skb), len)) {
		kfree_skb(skb);		/* checked in the doit: unreachable */
		settle(r, p, AOE_CTL_STATUS_TOO_BIG);
		return;
	}
	p->tag[p->tries] = tag;
	p->sent[p->tries] = ktime_get();
	p->tries++;
	__skb_queue_tail(q, skb);
}

static void ctl_xmit(struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		aoe_netif_xmit(skb);
}

/* Any context: a vmalloc'ed request is freed later from interrupts. */
static void ctl_free(struct aoe_ctl_req *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->path[i].net)
			put_net_track(r->path[i].net, &r->path[i].ns_tracker);
	kvfree(r);
}

static int put_result(struct sk_buff *skb, const struct aoe_ctl_req *r,
		      unsigned int i)
{
	const struct aoe_ctl_path *p = &r->path[i];
	bool answered = p->status == AOE_CTL_STATUS_ANSWERED ||
			p->status == AOE_CTL_STATUS_ERROR;
	struct nlattr *nest;

	if (nla_put_u32(skb, AOE_A_CTL_COOKIE, r->cookie) ||
	    nla_put_u16(skb, AOE_A_SHELF, r->shelf) ||
	    nla_put_u8(skb, AOE_A_SLOT, r->slot) ||
	    nla_put_u8(skb, AOE_A_CTL_CMD, r->cmd) ||
	    nla_put_u8(skb, AOE_A_CTL_SUBCMD, r->sub) ||
	    nla_put_u32(skb, AOE_A_PATH_COUNT, r->n))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, AOE_A_CTL_RESULT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, AOE_CTL_A_INDEX, i) ||
	    nla_put_u32(skb, AOE_CTL_A_IFINDEX, p->ifindex) ||
	    nla_put_string(skb, AOE_CTL_A_IFNAME, p->ifname) ||
	    nla_put(skb, AOE_CTL_A_SRC_MAC, ETH_ALEN, p->src) ||
	    nla_put(skb, AOE_CTL_A_DST_MAC, ETH_ALEN, p->dst) ||
	    nla_put_u32(skb, AOE_CTL_A_STATUS, p->status) ||
	    nla_put_u32(skb, AOE_CTL_A_TRIES, p->tries))
		return -EMSGSIZE;
	if (p->status == AOE_CTL_STATUS_ERROR &&
	    nla_put_u8(skb, AOE_CTL_A_AOE_ERROR, p->aoe_error))
		return -EMSGSIZE;
	if (answered && nla_put_u32(skb, AOE_CTL_A_RTT_US, p->rtt_us))
		return -EMSGSIZE;
	if (answered && r->cmd == AOE_CMD_CFG &&
	    (nla_put_u16(skb, AOE_CTL_A_BUFCNT, p->bufcnt) ||
	     nla_put_u16(skb, AOE_CTL_A_FWVER, p->fwver) ||
	     nla_put_u8(skb, AOE_CTL_A_MAXSECT, p->maxsect) ||
	     nla_put_u8(skb, AOE_CTL_A_AOEVER, p->aoever) ||
	     nla_put(skb, AOE_CTL_A_CONFIG, p->alen, p->answer)))
		return -EMSGSIZE;
	if (answered && r->cmd == AOE_CMD_MASK &&
	    nla_put_u8(skb, AOE_CTL_A_MERROR, p->merror))
		return -EMSGSIZE;
	if (answered && r->cmd != AOE_CMD_CFG &&
	    (nla_put_u32(skb, AOE_CTL_A_COUNT, p->count) ||
	     nla_put(skb, AOE_CTL_A_MACS, p->alen, p->answer)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* @r has left the list: its results go to the requester; then it is freed. */
static void ctl_complete(struct aoe_ctl_req *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
		void *hdr;

		if (!skb)
			break;
		hdr = aoe_netlink_put_hdr(skb, r->portid, r->seq,
					  AOE_CMD_CTL_RESULT);
		if (!hdr || put_result(skb, r, i)) {
			nlmsg_free(skb);	/* AOE_CTL_ANSWER_MAX fits: unreachable */
			break;
		}
		genlmsg_end(skb, hdr);
		/* the requester may be gone: nothing else to do then */
		if (aoe_netlink_unicast(r->net, skb, r->portid))
			break;
	}
	ctl_free(r);
}

static void ctl_tick(struct timer_list *timer)
{
	struct aoe_ctl_req *r, *tmp;
	struct sk_buff_head q;
	LIST_HEAD(done);
	unsigned int i;

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&aoe_ctl_lock);
	list_for_each_entry_safe(r, tmp, &aoe_ctl_list, node) {
		bool dead = time_after_eq(jiffies, r->deadline);

		for (i = 0; i < r->n && r->left; i++) {
			struct aoe_ctl_path *p = &r->path[i];

			if (p->status)
				continue;
			if (dead && p->kept)
				settle(r, p, p->aoe_error ? AOE_CTL_STATUS_ERROR :
						  AOE_CTL_STATUS_ANSWERED);
			else if (dead)
				settle(r, p, AOE_CTL_STATUS_TIMEOUT);
			else if (time_after_eq(jiffies, p->next))
				ctl_send(r, p, &q);
		}
		if (!r->left) {
			list_move_tail(&r->node, &done);
			aoe_ctl_pending--;
		}
	}
	if (!list_empty(&aoe_ctl_list))
		ctl_arm();
	spin_unlock_bh(&aoe_ctl_lock);
	ctl_xmit(&q);		/* inside RCU: the skbs hold no device reference */
	rcu_read_unlock();
	list_for_each_entry_safe(r, tmp, &done, node) {
		list_del(&r->node);
		ctl_complete(r);
	}
}

/* Did the answer @f do what @r asked (no E flag, no mask error)? */
static bool answer_ok(const struct aoe_ctl_req *r, const struct aoe_frame *f)
{
	if (f->flags & AOE_FL_ERR)
		return false;
	return r->cmd != AOE_CMD_MASK || !f->mask.merror;
}

/*
 * Copy what answer @f to the copy sent at @sent says into @p: its own
 * buffer, nothing allocated. Caller holds aoe_ctl_lock.
 */
static void take_answer(struct aoe_ctl_req *r, struct aoe_ctl_path *p,
			const struct aoe_frame *f, ktime_t sent)
{
	const u8 *src = NULL;
	size_t n = 0, i;

	p->rtt_us = ktime_us_delta(ktime_get(), sent);
	p->aoe_error = (f->flags & AOE_FL_ERR) ? f->error : 0;
	p->merror = 0;
	p->count = 0;
	switch (r->cmd) {
	case AOE_CMD_CFG:
		p->bufcnt = f->cfg.bufcnt;
		p->fwver = f->cfg.fwver;
		p->maxsect = f->cfg.maxsect;
		p->aoever = f->cfg.aoever;
		src = f->cfg.cfg;
		n = min_t(size_t, f->cfg.cfglen, AOE_CONFIG_MAXLEN);
		break;
	case AOE_CMD_MASK:
		p->merror = f->mask.merror;
		p->count = f->mask.count;
		if (f->mask.dirs)
			n = (size_t)f->mask.count * ETH_ALEN;
		break;
	case AOE_CMD_RESERVE:
		p->count = f->resv.count;
		if (f->resv.macs) {
			src = f->resv.macs;
			n = (size_t)f->resv.count * ETH_ALEN;
		}
		break;
	}
	/* decoded against the frame; 255 entries at most: always fits */
	if (n > sizeof(p->answer))
		n = 0;
	p->alen = n;
	if (r->cmd == AOE_CMD_MASK)
		/* the MAC of each directive (dcmd is 0) */
		for (i = 0; i < n / ETH_ALEN; i++)
			memcpy(p->answer + i * ETH_ALEN,
			       f->mask.dirs + i * AOE_MASK_DIR_LEN + 2, ETH_ALEN);
	else if (n)
		memcpy(p->answer, src, n);
}

/*
 * Answer @f to copy @k of pending path @p (see "Copies of a change" above).
 * Caller holds aoe_ctl_lock.
 */
static void path_answer(struct aoe_ctl_req *r, struct aoe_ctl_path *p,
			unsigned int k, const struct aoe_frame *f)
{
	bool ok = answer_ok(r, f);

	p->answered |= BIT(k);
	if (!r->sub || ok || !p->kept)
		take_answer(r, p, f, p->sent[k]);
	if (r->sub && !ok) {
		p->kept = true;
		if (p->answered != GENMASK(p->tries - 1, 0))
			return;		/* a copy still out may have taken */
	}
	settle(r, p, (f->flags & AOE_FL_ERR) ? AOE_CTL_STATUS_ERROR :
					       AOE_CTL_STATUS_ANSWERED);
}

bool aoe_ctl_rx(struct net_device *dev, const struct aoe_frame *f)
{
	struct aoe_ctl_req *r, *found = NULL;
	struct aoe_ctl_path *p = NULL;
	bool wrong = false;
	unsigned int i, k;

	if (!READ_ONCE(aoe_ctl_pending))
		return false;
	spin_lock_bh(&aoe_ctl_lock);
	list_for_each_entry(r, &aoe_ctl_list, node) {
		for (i = 0; i < r->n; i++) {
			struct aoe_ctl_path *c = &r->path[i];

			for (k = 0; k < c->tries; k++)
				if (c->tag[k] == f->tag)
					break;
			if (k == c->tries)
				continue;
			found = r;
			p = c;
			if (f->cmd != r->cmd || f->shelf != r->shelf ||
			    f->slot != r->slot || dev->ifindex != c->ifindex ||
			    dev_net(dev) != c->net ||
			    !ether_addr_equal(f->src, c->dst))
				wrong = true;
			else if (!c->status && !(c->answered & BIT(k)))
				path_answer(r, c, k, f);
			goto out;
		}
	}
out:
	if (p && !wrong && !found->left) {
		list_del(&found->node);
		aoe_ctl_pending--;
	} else {
		found = NULL;	/* still pending, a duplicate, or dropped */
	}
	spin_unlock_bh(&aoe_ctl_lock);
	if (wrong)
		aoe_drop(AOE_DROP_WRONG_PATH, dev, f);
	if (found)
		ctl_complete(found);
	return p;
}

/* ------------------------------------------------------------------------ */

static int ctl_check(struct genl_info *info, u8 cmd, u8 sub, const u8 *data,
		     u32 dlen)
{
	u32 i;

	switch (cmd) {
	case AOE_CMD_CFG:
		if (sub > AOE_CCMD_FSET || dlen > AOE_CONFIG_MAXLEN) {
			NL_SET_ERR_MSG(info->extack,
				       "Query Config: ccmd 0..4, string of at most 1024 bytes");
			return -EINVAL;
		}
		return 0;
	case AOE_CMD_MASK:
		if (sub > AOE_MCMD_EDIT || dlen % AOE_MASK_DIR_LEN ||
		    dlen > AOE_CTL_DATA_MAX || (sub == AOE_MCMD_READ && dlen)) {
			NL_SET_ERR_MSG(info->extack,
				       "MAC Mask List: mcmd 0..1, edits carry 1..255 directives of 8 bytes");
			return -EINVAL;
		}
		for (i = 0; i < dlen; i += AOE_MASK_DIR_LEN)
			if (data[i + 1] > AOE_DCMD_DEL ||
			    !is_valid_ether_addr(data + i + 2)) {
				NL_SET_ERR_MSG(info->extack,
					       "MAC Mask List: a directive is not none/add/delete of a unicast MAC");
				return -EINVAL;
			}
		return 0;
	case AOE_CMD_RESERVE:
		if (sub > AOE_RCMD_FORCE || dlen % ETH_ALEN ||
		    dlen > 255 * ETH_ALEN || (sub == AOE_RCMD_READ && dlen)) {
			NL_SET_ERR_MSG(info->extack,
				       "Reserve/Release: rcmd 0..2, at most 255 MACs of 6 bytes");
			return -EINVAL;
		}
		for (i = 0; i < dlen; i += ETH_ALEN)
			if (!is_valid_ether_addr(data + i)) {
				NL_SET_ERR_MSG(info->extack,
					       "Reserve/Release: a MAC is not a unicast address");
				return -EINVAL;
			}
		return 0;
	}
	NL_SET_ERR_MSG(info->extack,
		       "AoE command 1 (Query Config), 2 (MAC Mask List) or 3 (Reserve/Release)");
	return -EINVAL;
}

/* Is @p's target port already in @r (a change goes once per port)? */
static bool port_taken(const struct aoe_ctl_req *r, const struct aoe_path *p)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (ether_addr_equal(r->path[i].dst, p->mac))
			return true;
	return false;
}

static void add_path(struct aoe_ctl_req *r, const struct aoe_path *p)
{
	struct aoe_ctl_path *c = &r->path[r->n++];
	size_t len = aoe_ctl_frame_len(r->cmd, r->dlen);
	struct net *net = read_pnet(&p->net);
	struct net_device *dev = NULL;

	c->ifindex = p->ifindex;
	strscpy(c->ifname, p->ifname, sizeof(c->ifname));
	ether_addr_copy(c->dst, p->mac);
	/* a namespace being dismantled has no reference left to take */
	if (maybe_get_net(net)) {
		c->net = net;
		netns_tracker_alloc(net, &c->ns_tracker, GFP_ATOMIC);
		dev = dev_get_by_index_rcu(net, p->ifindex);
	}
	if (dev) {
		ether_addr_copy(c->src, dev->dev_addr);
		c->mtu = dev->mtu;
	}
	/* a frame beyond the path's MTU would be dropped, or EMSGSIZE */
	if (!dev || !aoe_netif_usable(dev))
		c->status = AOE_CTL_STATUS_NO_DEVICE;
	else if (!aoe_ctl_fits_mtu(len, dev->mtu))
		c->status = AOE_CTL_STATUS_TOO_BIG;
}

/*
 * May control frames for @t go over @p? Once @t is identified, only over
 * paths verified by IDENTIFY: up, or down after being up. A candidate may be
 * another device (aoe(4) "Target identity"). A target never identified has
 * no identity to keep (one reserved for another initiator refuses IDENTIFY
 * and must still be released): any path.
 */
static bool ctl_path_ok(const struct aoe_target *t, const struct aoe_path *p)
{
	return !t->identified || p->state == AOE_PATH_STATE_UP ||
	       (p->state == AOE_PATH_STATE_DOWN && p->verified);
}

/* The paths @r goes out on. Caller holds RCU and t->lock. */
static void snapshot(struct aoe_ctl_req *r, const struct aoe_target *t,
		     bool change)
{
	const struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node) {
		if (!ctl_path_ok(t, p) ||
		    (change && (p->state != AOE_PATH_STATE_UP ||
				port_taken(r, p))))
			continue;
		add_path(r, p);
	}
	if (!change)
		return;
	/* ports reached only over paths that are down get one of those */
	list_for_each_entry(p, &t->paths, node)
		if (ctl_path_ok(t, p) && !port_taken(r, p))
			add_path(r, p);
}

int aoe_ctl_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct aoe_ctl_req *r;
	struct aoe_target *t;
	struct sk_buff_head q;
	struct sk_buff *msg;
	unsigned int i, usable = 0, big = 0;
	bool found = false;
	u32 tmo = AOE_CTL_TIMEOUT_MS_DEFAULT;
	const u8 *data = NULL;
	u32 dlen = 0;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AOE_A_SHELF) ||
	    GENL_REQ_ATTR_CHECK(info, AOE_A_SLOT) ||
	    GENL_REQ_ATTR_CHECK(info, AOE_A_CTL_CMD) ||
	    GENL_REQ_ATTR_CHECK(info, AOE_A_CTL_COOKIE))
		return -EINVAL;
	if (info->attrs[AOE_A_CTL_DATA]) {
		data = nla_data(info->attrs[AOE_A_CTL_DATA]);
		dlen = nla_len(info->attrs[AOE_A_CTL_DATA]);
	}
	if (info->attrs[AOE_A_CTL_TIMEOUT_MS])
		tmo = nla_get_u32(info->attrs[AOE_A_CTL_TIMEOUT_MS]);
	if (tmo < AOE_CTL_TIMEOUT_MS_MIN || tmo > AOE_CTL_TIMEOUT_MS_MAX) {
		NL_SET_ERR_MSG(info->extack, "timeout: 100..10000 ms");
		return -EINVAL;
	}
	/* ~30 KiB with every answer's buffer: no allocation after this */
	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->shelf = nla_get_u16(info->attrs[AOE_A_SHELF]);
	r->slot = nla_get_u8(info->attrs[AOE_A_SLOT]);
	r->cmd = nla_get_u8(info->attrs[AOE_A_CTL_CMD]);
	r->sub = info->attrs[AOE_A_CTL_SUBCMD] ?
		 nla_get_u8(info->attrs[AOE_A_CTL_SUBCMD]) : 0;
	r->cookie = nla_get_u32(info->attrs[AOE_A_CTL_COOKIE]);
	r->net = genl_info_net(info);
	r->portid = info->snd_portid;
	r->seq = info->snd_seq;
	ret = -EINVAL;
	if (r->shelf == AOE_SHELF_ANY || r->slot == AOE_SLOT_ANY) {
		NL_SET_ERR_MSG(info->extack,
			       "shelf 65535 and slot 255 are broadcast addresses");
		goto free;
	}
	ret = ctl_check(info, r->cmd, r->sub, data, dlen);
	if (ret)
		goto free;
	r->dlen = dlen;
	if (dlen)
		memcpy(r->data, data, dlen);

	rcu_read_lock();
	t = aoe_target_find(r->shelf, r->slot);
	if (t) {
		spin_lock_bh(&t->lock);
		found = !t->removed;	/* else unlinked after the lookup */
		if (found)
			snapshot(r, t, r->sub != 0);
		spin_unlock_bh(&t->lock);
	}
	rcu_read_unlock();
	ret = -ENOENT;
	if (!found) {
		NL_SET_ERR_MSG(info->extack, "no such target");
		goto free;
	}
	if (!r->n) {
		NL_SET_ERR_MSG(info->extack, "the target has no path");
		goto free;
	}
	for (i = 0; i < r->n; i++) {
		usable += !r->path[i].status;
		big += r->path[i].status == AOE_CTL_STATUS_TOO_BIG;
	}
	if (!usable && big) {
		NL_SET_ERR_MSG(info->extack,
			       "the request is larger than the MTU of every path");
		ret = -EMSGSIZE;
		goto free;
	}
	r->left = usable;

	/* a slot first: the reply promises results */
	spin_lock_bh(&aoe_ctl_lock);
	ret = aoe_ctl_stopping ? -ESHUTDOWN :
	      aoe_ctl_pending >= AOE_CTL_MAX_PENDING ? -EBUSY : 0;
	if (!ret)
		aoe_ctl_pending++;
	spin_unlock_bh(&aoe_ctl_lock);
	if (ret == -EBUSY)
		NL_SET_ERR_MSG(info->extack,
			       "too many control requests pending: try again");
	else if (ret)
		NL_SET_ERR_MSG(info->extack, "the module is being unloaded");
	if (ret)
		goto free;

	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto unreserve;
	hdr = aoe_netlink_put_hdr(msg, info->snd_portid, info->snd_seq,
				  AOE_CMD_CTL);
	if (!hdr || nla_put_u32(msg, AOE_A_CTL_COOKIE, r->cookie) ||
	    nla_put_u32(msg, AOE_A_PATH_COUNT, r->n)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto unreserve;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	if (ret)
		goto unreserve;

	__skb_queue_head_init(&q);
	r->deadline = jiffies + msecs_to_jiffies(tmo);
	rcu_read_lock();
	spin_lock_bh(&aoe_ctl_lock);
	if (aoe_ctl_stopping) {
		/* unloading: aoe_ctl_uninit() reset the count; no results */
		spin_unlock_bh(&aoe_ctl_lock);
		rcu_read_unlock();
		ctl_free(r);
		return 0;
	}
	list_add_tail(&r->node, &aoe_ctl_list);
	for (i = 0; i < r->n; i++)
		if (!r->path[i].status)
			ctl_send(r, &r->path[i], &q);
	if (!r->left) {
		list_del(&r->node);
		aoe_ctl_pending--;
	} else {
		ctl_arm();
		r = NULL;
	}
	spin_unlock_bh(&aoe_ctl_lock);
	ctl_xmit(&q);		/* inside RCU: the skbs hold no device reference */
	rcu_read_unlock();
	if (r)
		ctl_complete(r);	/* nothing was sendable */
	return 0;

unreserve:
	spin_lock_bh(&aoe_ctl_lock);
	if (!aoe_ctl_stopping)	/* else aoe_ctl_uninit() reset the count */
		aoe_ctl_pending--;
	spin_unlock_bh(&aoe_ctl_lock);
free:
	ctl_free(r);
	return ret;
}

/* Drop the requests on @list (off aoe_ctl_list already), no results. */
static void ctl_free_list(struct list_head *list)
{
	struct aoe_ctl_req *r, *tmp;

	list_for_each_entry_safe(r, tmp, list, node) {
		list_del(&r->node);
		ctl_free(r);
	}
}

/*
 * A netlink socket was released (process context, the netlink notifier
 * chain): the requests of its port in its namespace have nobody to answer and
 * go now, not at their deadline, so that they do not hold the
 * AOE_CTL_MAX_PENDING slots. A doit from that port cannot run any more (it
 * runs inside a sendmsg() on the socket, which holds it).
 */
static int ctl_urelease(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	const struct netlink_notify *n = ptr;
	struct aoe_ctl_req *r, *tmp;
	LIST_HEAD(gone);

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !n->portid)
		return NOTIFY_DONE;
	spin_lock_bh(&aoe_ctl_lock);
	list_for_each_entry_safe(r, tmp, &aoe_ctl_list, node) {
		if (r->portid != n->portid || !net_eq(r->net, n->net))
			continue;
		list_move_tail(&r->node, &gone);
		aoe_ctl_pending--;
	}
	spin_unlock_bh(&aoe_ctl_lock);
	ctl_free_list(&gone);
	return NOTIFY_DONE;
}

static struct notifier_block aoe_ctl_nb = {
	.notifier_call = ctl_urelease,
};

int aoe_ctl_init(void)
{
	int ret = netlink_register_notifier(&aoe_ctl_nb);

	if (ret)
		return ret;
	spin_lock_bh(&aoe_ctl_lock);
	aoe_ctl_stopping = false;
	spin_unlock_bh(&aoe_ctl_lock);
	return 0;
}

void aoe_ctl_uninit(void)
{
	LIST_HEAD(left);

	spin_lock_bh(&aoe_ctl_lock);
	aoe_ctl_stopping = true;
	spin_unlock_bh(&aoe_ctl_lock);
	/* waits for a running ctl_urelease() */
	netlink_unregister_notifier(&aoe_ctl_nb);
	/* not re-armed: aoe_ctl_stopping; the family is still registered */
	del_timer_sync(&aoe_ctl_timer);
	spin_lock_bh(&aoe_ctl_lock);
	list_splice_init(&aoe_ctl_list, &left);
	aoe_ctl_pending = 0;
	spin_unlock_bh(&aoe_ctl_lock);
	/* the module goes: no results */
	ctl_free_list(&left);
}
