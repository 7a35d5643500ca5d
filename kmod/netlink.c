// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "aoe": the documented contract is
 * uapi/aoe_netlink.h. Reading needs no privilege; changes need
 * CAP_NET_ADMIN (GENL_ADMIN_PERM).
 *
 * Locking: every message about a target is filled under its lock (t->lock,
 * BH-safe, target.h; a dump walks the table under aoe_tgt_lock too), so
 * nothing here sleeps while filling; skbs are allocated
 * GFP_ATOMIC under the lock (events) or GFP_KERNEL before taking it.
 *
 * Network namespaces: the family is visible in the initial namespace only
 * (no .netnsok): targets are global and carry every path's interface, MAC
 * and identity, which a container must not read, and requests change the
 * host's targets. DISCOVER broadcasts on the interfaces of every namespace
 * AoE may use (aoe_netns, params.c); a privileged caller names another
 * namespace with AOE_A_NETNS_FD (its interface list and interfaces in
 * GET_INFO, SET_INTERFACES, DISCOVER); a path over another namespace's
 * interface carries AOE_PATH_A_NETNSID (peernet2id(): init_net's id of that
 * namespace, -1 if it has none).
 *
 * A target does not always fit one message: 16 paths with every counter
 * and a 1024-byte config string take ~10 KiB, a dump skb can be ~4 KiB.
 * The GET_TARGET dump therefore resumes at the path level (cb->args[0]:
 * target index, cb->args[1]: next path of that target) and, for readers
 * that asked for it (request version >= AOE_GENL_VERSION_SPLIT), continues
 * a target in further messages; see the uapi header. The target attributes
 * plus one path always fit an empty dump skb (BUILD_BUG_ON in
 * aoe_netlink_init()). A dump is refused (EAGAIN) until the module's init
 * is done (aoe_nl_dump_start()).
 */
#include <linux/if_arp.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "aoe_trace.h"
#include "ctl.h"
#include "discover.h"
#include "netlink.h"
#include "params.h"
#include "policy.h"
#include "target.h"
#include "uapi/aoe_netlink.h"

static struct genl_family aoe_genl_family;

enum { AOE_MCGRP_EVENTS_IDX };

static const struct genl_multicast_group aoe_mcgrps[] = {
	[AOE_MCGRP_EVENTS_IDX] = { .name = AOE_GENL_MCGRP_EVENTS },
};

static const struct nla_policy aoe_nl_policy[AOE_A_MAX + 1] = {
	/* ranges are checked in get_addr(): a policy max is an s16 */
	[AOE_A_SHELF] = { .type = NLA_U16 },
	[AOE_A_SLOT] = { .type = NLA_U8 },
	[AOE_A_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[AOE_A_IFLIST] = { .type = NLA_NUL_STRING, .len = AOE_IFLIST_MAX - 1 },
	[AOE_A_FLUSH_ALL] = { .type = NLA_FLAG },
	[AOE_A_FLUSH_MODE] = NLA_POLICY_MAX(NLA_U32, AOE_FLUSH_MODE_MAX),
	/* failure policy: ranges checked in policy.c (AOE_POLICY_DEFAULT) */
	[AOE_A_DEADSECS] = { .type = NLA_U32 },
	[AOE_A_FAST_FAIL] = { .type = NLA_U32 },
	/* AOE_CMD_CTL: ranges checked in ctl.c */
	[AOE_A_CTL_CMD] = { .type = NLA_U8 },
	[AOE_A_CTL_SUBCMD] = { .type = NLA_U8 },
	[AOE_A_CTL_DATA] = { .type = NLA_BINARY, .len = 255 * 8 },
	[AOE_A_CTL_COOKIE] = { .type = NLA_U32 },
	[AOE_A_CTL_TIMEOUT_MS] = { .type = NLA_U32 },
	[AOE_A_NETNS_FD] = { .type = NLA_U32 },
	[AOE_A_IFLIST_INHERIT] = { .type = NLA_FLAG },
};

/* shelf.slot from a request; the broadcast shelf is not an address */
static int get_addr(struct genl_info *info, u16 *shelf, u8 *slot)
{
	if (GENL_REQ_ATTR_CHECK(info, AOE_A_SHELF) ||
	    GENL_REQ_ATTR_CHECK(info, AOE_A_SLOT))
		return -EINVAL;
	*shelf = nla_get_u16(info->attrs[AOE_A_SHELF]);
	*slot = nla_get_u8(info->attrs[AOE_A_SLOT]);
	if (*shelf == AOE_SHELF_ANY || *slot == AOE_SLOT_ANY) {
		NL_SET_ERR_MSG(info->extack,
			       "shelf 65535 and slot 255 are broadcast addresses");
		return -EINVAL;
	}
	return 0;
}

/*
 * Upper bounds of what put_target_attrs() and put_path() emit, counted as if
 * every scalar attribute of the enum were a u64 with a pad attribute: new
 * scalar attributes are covered; a new string or binary one must be added.
 */
#define AOE_NL_SCALAR		(2 * NLA_HDRLEN + 8)
#define AOE_NL_COUNTERS_MAX						\
	(NLA_HDRLEN + AOE_CNT_A_MAX * AOE_NL_SCALAR +			\
	 NLA_HDRLEN + AOE_DROP_MAX * AOE_NL_SCALAR)
#define AOE_NL_PATH_MAX							\
	(NLA_HDRLEN + AOE_PATH_A_MAX * AOE_NL_SCALAR +			\
	 nla_total_size(IFNAMSIZ) + nla_total_size(ETH_ALEN) +		\
	 AOE_NL_COUNTERS_MAX)
/*
 * A target message holds no AOE_CMD_CTL attribute (requests and
 * CTL_RESULT events only), and its strings and nests (DEVICE, MODEL, SERIAL,
 * FIRMWARE, CONFIG, COUNTERS, PATHS, CONFLICTS: 8) are sized on their own.
 */
#define AOE_NL_CTL_ATTRS	(AOE_A_CTL_RESULT - AOE_A_CTL_CMD + 1)
#define AOE_NL_TARGET_SCALARS	(AOE_A_MAX - AOE_NL_CTL_ATTRS - 8)
#define AOE_NL_TARGET_MAX						\
	(GENL_HDRLEN + AOE_NL_TARGET_SCALARS * AOE_NL_SCALAR +		\
	 nla_total_size(16) +						\
	 nla_total_size(sizeof_field(struct aoe_identity, model)) +	\
	 nla_total_size(sizeof_field(struct aoe_identity, serial)) +	\
	 nla_total_size(sizeof_field(struct aoe_identity, firmware)) +	\
	 nla_total_size(AOE_CONFIG_MAXLEN) + AOE_NL_COUNTERS_MAX +	\
	 NLA_HDRLEN + AOE_NL_CONFLICTS_MAX)
/* exact: a target's conflicts are in its first message, with one path */
#define AOE_NL_CONFLICT_MAX						\
	(NLA_HDRLEN + 4 * nla_total_size(sizeof(u32)) +			\
	 nla_total_size(ETH_ALEN) +					\
	 nla_total_size(sizeof_field(struct aoe_conflict, serial)))
#define AOE_NL_CONFLICTS_MAX						\
	(NLA_HDRLEN + AOE_CONFLICT_SLOTS * AOE_NL_CONFLICT_MAX)

static u64 ms_since(unsigned long when)
{
	return when ? jiffies_to_msecs(jiffies - when) : U64_MAX;
}

static int put_drops(struct sk_buff *skb, int attr, const u64 *drops)
{
	struct nlattr *nest;
	int r;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	for (r = AOE_DROP_PAD + 1; r <= AOE_DROP_MAX; r++)
		if (drops[r] &&
		    nla_put_u64_64bit(skb, r, drops[r], AOE_DROP_PAD))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_counters(struct sk_buff *skb, int attr,
			const struct aoe_counters *c)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, AOE_CNT_A_FRAMES_SENT, c->frames_sent,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_FRAMES_RECEIVED,
			      c->frames_received, AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_RETRANSMITS, c->retransmits,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_TIMEOUTS, c->timeouts,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_LOST, c->lost, AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_BYTES_READ, c->bytes_read,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_BYTES_WRITTEN, c->bytes_written,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_READ_REQS, c->read_reqs,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_WRITE_REQS, c->write_reqs,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_ATA_ERRORS, c->ata_errors,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_BACKOFFS, c->backoffs,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_FLUSHES_SENT, c->flushes_sent,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_FLUSHES_ANSWERED,
			      c->flushes_answered, AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_FLUSHES_FAILED, c->flushes_failed,
			      AOE_CNT_A_PAD) ||
	    nla_put_u64_64bit(skb, AOE_CNT_A_FUA_WRITES, c->fua_writes,
			      AOE_CNT_A_PAD) ||
	    put_drops(skb, AOE_CNT_A_DROPS, c->drops))
		goto cancel;
	/* the stale-write fence and identity: a target's, not a path's */
	if (attr == AOE_A_COUNTERS &&
	    (nla_put_u64_64bit(skb, AOE_CNT_A_FENCE_GHOSTS, c->fence_ghosts,
			       AOE_CNT_A_PAD) ||
	     nla_put_u64_64bit(skb, AOE_CNT_A_ADDRESS_CONFLICTS,
			       c->address_conflicts, AOE_CNT_A_PAD) ||
	     nla_put_u64_64bit(skb, AOE_CNT_A_FENCE_HELD, c->fence_held,
			       AOE_CNT_A_PAD) ||
	     nla_put_u64_64bit(skb, AOE_CNT_A_FENCE_HELD_US, c->fence_held_us,
			       AOE_CNT_A_PAD)))
		goto cancel;
	if (nla_put_u64_64bit(skb, AOE_CNT_A_RESERVE_CONFLICTS,
			      c->reserve_conflicts, AOE_CNT_A_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_path(struct sk_buff *skb, const struct aoe_path *p,
		    struct net *net)
{
	struct net *pnet = read_pnet(&p->net);
	struct nlattr *nest;

	nest = nla_nest_start(skb, 0);
	if (!nest)
		return -EMSGSIZE;
	/* another namespace's interface: its id as @net knows it (or -1) */
	if ((!net_eq(pnet, net) &&
	     nla_put_s32(skb, AOE_PATH_A_NETNSID, peernet2id(net, pnet))) ||
	    nla_put_u32(skb, AOE_PATH_A_IFINDEX, p->ifindex) ||
	    nla_put_string(skb, AOE_PATH_A_IFNAME, p->ifname) ||
	    nla_put(skb, AOE_PATH_A_MAC, ETH_ALEN, p->mac) ||
	    nla_put_u32(skb, AOE_PATH_A_STATE, p->state) ||
	    nla_put_u16(skb, AOE_PATH_A_BUFCNT, p->bufcnt) ||
	    nla_put_u16(skb, AOE_PATH_A_FWVER, p->fwver) ||
	    nla_put_u8(skb, AOE_PATH_A_MAXSECT, p->maxsect) ||
	    nla_put_u32(skb, AOE_PATH_A_MTU, p->mtu) ||
	    nla_put_u32(skb, AOE_PATH_A_PAYLOAD, p->payload) ||
	    (p->rtt.srtt_us &&
	     (nla_put_u32(skb, AOE_PATH_A_RTT_AVG_US, p->rtt.srtt_us) ||
	      nla_put_u32(skb, AOE_PATH_A_RTT_DEV_US, p->rtt.rttvar_us) ||
	      nla_put_u32(skb, AOE_PATH_A_RTT_MIN_US, p->rtt.min_us))) ||
	    nla_put_u32(skb, AOE_PATH_A_RTO_US, aoe_rtt_rto(&p->rtt)) ||
	    nla_put_u32(skb, AOE_PATH_A_WINDOW, p->win.cwnd) ||
	    nla_put_u32(skb, AOE_PATH_A_OUTSTANDING, p->outstanding) ||
	    nla_put_u64_64bit(skb, AOE_PATH_A_LAST_RX_MS, ms_since(p->last_rx),
			      AOE_PATH_A_PAD) ||
	    put_counters(skb, AOE_PATH_A_COUNTERS, &p->cnt))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_conflict(struct sk_buff *skb, const struct aoe_conflict *e,
			u64 now)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, 0);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, AOE_CONFLICT_A_IFINDEX, e->ifindex) ||
	    nla_put(skb, AOE_CONFLICT_A_MAC, ETH_ALEN, e->mac) ||
	    nla_put_string(skb, AOE_CONFLICT_A_SERIAL, e->serial) ||
	    nla_put_u32(skb, AOE_CONFLICT_A_REASON, e->verdict) ||
	    nla_put_u32(skb, AOE_CONFLICT_A_AGE_MS,
			(u32)min_t(u64, div_u64(now - e->since_ns,
						NSEC_PER_MSEC), U32_MAX)) ||
	    nla_put_u32(skb, AOE_CONFLICT_A_EXPIRES_MS,
			(u32)div_u64(e->until_ns - now, NSEC_PER_MSEC))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * AOE_A_CONFLICTS: the paths refused and still remembered, @first (the one
 * an event is about) first; nothing when there are none.
 */
static int put_conflicts(struct sk_buff *skb, const struct aoe_target *t,
			 const struct aoe_conflict *first)
{
	u64 now = aoe_target_now_ns();
	struct nlattr *nest;
	int i;

	if (!aoe_conflict_count(&t->conflicts, now))
		return 0;
	nest = nla_nest_start(skb, AOE_A_CONFLICTS);
	if (!nest)
		return -EMSGSIZE;
	if (first && aoe_conflict_live(first, now) &&
	    put_conflict(skb, first, now))
		goto cancel;
	for (i = 0; i < AOE_CONFLICT_SLOTS; i++) {
		const struct aoe_conflict *e = &t->conflicts.e[i];

		if (e != first && aoe_conflict_live(e, now) &&
		    put_conflict(skb, e, now))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The attributes that name a target, in every message about it. */
static int put_target_addr(struct sk_buff *skb, const struct aoe_target *t)
{
	char name[16];

	snprintf(name, sizeof(name), "e%u.%u", t->shelf, t->slot);
	if (nla_put_u32(skb, AOE_A_GENERATION, aoe_tgt_gen()) ||
	    nla_put_u16(skb, AOE_A_SHELF, t->shelf) ||
	    nla_put_u8(skb, AOE_A_SLOT, t->slot) ||
	    nla_put_string(skb, AOE_A_DEVICE, name) ||
	    nla_put_u32(skb, AOE_A_PATH_COUNT, t->npaths))
		return -EMSGSIZE;
	return 0;
}

/* Every target attribute but its paths (@first: put_conflicts()). */
static int put_target_attrs_c(struct sk_buff *skb, const struct aoe_target *t,
			      const struct aoe_conflict *first)
{
	if (put_target_addr(skb, t) ||
	    nla_put_u32(skb, AOE_A_STATE, t->state) ||
	    nla_put_u32(skb, AOE_A_PAYLOAD, aoe_target_payload(t)) ||
	    nla_put_u32(skb, AOE_A_OUTSTANDING, t->outstanding) ||
	    (t->id.sectors &&
	     (nla_put_u64_64bit(skb, AOE_A_SECTORS, t->id.sectors, AOE_A_PAD) ||
	      nla_put_string(skb, AOE_A_MODEL, t->id.model) ||
	      nla_put_string(skb, AOE_A_SERIAL, t->id.serial) ||
	      nla_put_string(skb, AOE_A_FIRMWARE, t->id.firmware) ||
	      (t->id.lba48 && nla_put_flag(skb, AOE_A_LBA48)) ||
	      nla_put_u32(skb, AOE_A_CACHE, aoe_target_cache_bits(t)))) ||
	    nla_put_u32(skb, AOE_A_FLUSH_MODE, t->flush_mode) ||
	    nla_put(skb, AOE_A_CONFIG, t->cfglen, t->config) ||
	    nla_put_u64_64bit(skb, AOE_A_LAST_RX_MS, ms_since(t->last_rx),
			      AOE_A_PAD) ||
	    put_counters(skb, AOE_A_COUNTERS, &t->cnt) ||
	    put_conflicts(skb, t, first) ||
	    aoe_policy_put(skb, t))
		return -EMSGSIZE;
	return 0;
}

static int put_target_attrs(struct sk_buff *skb, const struct aoe_target *t)
{
	return put_target_attrs_c(skb, t, NULL);
}

/*
 * AOE_A_PATHS with the paths of @t from index @first on (only @only if
 * given), as many as fit. Returns how many it put, or -EMSGSIZE when not
 * even the empty nest fit.
 */
static int put_paths(struct sk_buff *skb, const struct aoe_target *t,
		     unsigned int first, const struct aoe_path *only,
		     struct net *net)
{
	const struct aoe_path *p;
	struct nlattr *nest;
	unsigned int i = 0;
	int n = 0;

	nest = nla_nest_start(skb, AOE_A_PATHS);
	if (!nest)
		return -EMSGSIZE;
	list_for_each_entry(p, &t->paths, node) {
		if (i++ < first || (only && p != only))
			continue;
		if (put_path(skb, p, net))
			break;
		n++;
	}
	nla_nest_end(skb, nest);
	return n;
}

/* Every target event is a tracepoint too, listeners or not (aoe_trace.h). */
static void aoe_trace_notify(u8 cmd, const struct aoe_target *t)
{
	switch (cmd) {
	case AOE_CMD_TARGET_NEW:
	case AOE_CMD_TARGET_UP:
	case AOE_CMD_TARGET_DOWN:
	case AOE_CMD_TARGET_GONE:
	case AOE_CMD_PAYLOAD_CHANGED:
	case AOE_CMD_CAPACITY_CHANGED:
		if (trace_aoe_target_event_enabled())
			trace_aoe_target_event(t->shelf, t->slot, cmd, t->state,
					       t->id.sectors,
					       aoe_target_payload(t));
		break;
	default:
		break;
	}
}

static void notify(u8 cmd, struct aoe_target *t, struct aoe_path *p,
		   const struct aoe_conflict *c);

void aoe_netlink_notify(u8 cmd, struct aoe_target *t, struct aoe_path *p)
{
	notify(cmd, t, p, NULL);
}

void aoe_netlink_conflict(struct aoe_target *t, const struct aoe_conflict *c)
{
	notify(AOE_CMD_ADDRESS_CONFLICT, t, NULL, c);
}

static void notify(u8 cmd, struct aoe_target *t, struct aoe_path *p,
		   const struct aoe_conflict *c)
{
	struct sk_buff *skb;
	void *hdr;

	aoe_t_assert(t);
	aoe_trace_notify(cmd, t);
	if (!genl_has_listeners(&aoe_genl_family, &init_net,
				AOE_MCGRP_EVENTS_IDX))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &aoe_genl_family, 0, cmd);
	if (!hdr)
		goto err;
	/* as many paths as fit; AOE_A_PATH_COUNT tells how many there are */
	if (put_target_attrs_c(skb, t, c) ||
	    (cmd != AOE_CMD_TARGET_GONE &&
	     put_paths(skb, t, 0, p, &init_net) < 0))
		goto err;
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&aoe_genl_family, skb, 0, AOE_MCGRP_EVENTS_IDX,
			  GFP_ATOMIC);
	return;
err:
	nlmsg_free(skb);
}

/*
 * Dump messages for @t from its path *@first on, until the target is done
 * (0) or @skb is full (-EMSGSIZE, *@first is where to resume). A reader
 * that cannot reassemble (@split false) gets one message per target, with
 * the paths that fit an otherwise empty skb.
 */
static int dump_target(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct aoe_target *t, unsigned int *first,
		       bool split)
{
	bool alone;
	void *hdr;
	int n;

	do {
		alone = !skb->len;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &aoe_genl_family,
				  NLM_F_MULTI, AOE_CMD_GET_TARGET);
		if (!hdr)
			return -EMSGSIZE;
		genl_dump_check_consistent(cb, hdr);
		if ((*first ? put_target_addr(skb, t) :
			      put_target_attrs(skb, t)) ||
		    nla_put_u32(skb, AOE_A_PATH_FIRST, *first))
			goto cancel;
		n = put_paths(skb, t, *first, NULL, sock_net(cb->skb->sk));
		/* no progress, or an old reader's target better fits alone */
		if (n < 0 || (!n && *first < t->npaths) ||
		    (!split && !alone && *first + n < t->npaths))
			goto cancel;
		genlmsg_end(skb, hdr);
		*first += n;
	} while (split && *first < t->npaths);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int aoe_nl_get_target_dump(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	const struct genlmsghdr *req = nlmsg_data(cb->nlh);
	bool split = req->version >= AOE_GENL_VERSION_SPLIT;
	long idx = 0, start = cb->args[0];
	unsigned int first = cb->args[1];
	struct aoe_target *t;
	int ret = 0;

	spin_lock_bh(&aoe_tgt_lock);
	cb->seq = aoe_tgt_gen();
	list_for_each_entry(t, &aoe_tgt_list, node) {
		if (idx < start) {
			idx++;
			continue;
		}
		spin_lock(&t->lock);
		ret = dump_target(skb, cb, t, &first, split);
		spin_unlock(&t->lock);
		if (ret)
			break;
		idx++;
		first = 0;
	}
	spin_unlock_bh(&aoe_tgt_lock);
	cb->args[0] = idx;
	cb->args[1] = first;
	/* nothing fit an empty skb: an error, not a dump that never ends */
	if (ret && !skb->len) {
		pr_warn_once("a target does not fit an empty dump message\n");
		return ret;
	}
	return skb->len;
}

static int aoe_nl_get_target_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct aoe_target *t;
	struct sk_buff *msg;
	void *hdr;
	u16 shelf;
	u8 slot;
	int ret;

	ret = get_addr(info, &shelf, &slot);
	if (ret)
		return ret;
	/* one message with every path: readers with a small buffer dump */
	msg = genlmsg_new(AOE_NL_TARGET_MAX + AOE_MAX_PATHS * AOE_NL_PATH_MAX,
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &aoe_genl_family, 0,
				AOE_CMD_GET_TARGET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}
	rcu_read_lock();
	t = aoe_target_find(shelf, slot);
	ret = -ENOENT;
	if (t) {
		spin_lock_bh(&t->lock);
		if (!t->removed) {
			ret = put_target_attrs(msg, t);
			if (!ret && put_paths(msg, t, 0, NULL,
					      genl_info_net(info)) != t->npaths)
				ret = -EMSGSIZE;
		}
		spin_unlock_bh(&t->lock);
	}
	rcu_read_unlock();
	if (ret) {
		if (ret == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no such target");
		goto err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return ret;
}

static int put_interfaces(struct sk_buff *skb, struct net *net)
{
	struct net_device *dev;
	struct nlattr *nest, *one;
	int ret = 0;

	nest = nla_nest_start(skb, AOE_A_INTERFACES);
	if (!nest)
		return -EMSGSIZE;
	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		if (dev->type != ARPHRD_ETHER || (dev->flags & IFF_LOOPBACK) ||
		    !aoe_params_if_allowed(net, dev->name))
			continue;
		one = nla_nest_start(skb, 0);
		if (!one ||
		    nla_put_u32(skb, AOE_IF_A_IFINDEX, dev->ifindex) ||
		    nla_put_string(skb, AOE_IF_A_IFNAME, dev->name) ||
		    nla_put_u32(skb, AOE_IF_A_MTU, dev->mtu) ||
		    (netif_running(dev) && netif_carrier_ok(dev) &&
		     nla_put_flag(skb, AOE_IF_A_UP))) {
			ret = -EMSGSIZE;
			break;
		}
		nla_nest_end(skb, one);
	}
	rcu_read_unlock();
	if (ret)
		return ret;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The namespace a request names with AOE_A_NETNS_FD (CAP_NET_ADMIN, one AoE
 * may use), else the caller's; a reference the caller puts, or an ERR_PTR.
 */
static struct net *nl_net(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net;

	if (!info->attrs[AOE_A_NETNS_FD])
		return get_net(genl_info_net(info));
	if (!netlink_capable(skb, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(info->extack,
			       "naming a network namespace needs CAP_NET_ADMIN");
		return ERR_PTR(-EPERM);
	}
	net = get_net_ns_by_fd(nla_get_u32(info->attrs[AOE_A_NETNS_FD]));
	if (IS_ERR(net)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[AOE_A_NETNS_FD],
				    "not a network namespace file descriptor");
		return net;
	}
	if (!aoe_params_net_allowed(net)) {
		put_net(net);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[AOE_A_NETNS_FD],
				    "AoE does not use that network namespace (aoe_netns=N, or another user namespace owns it)");
		return ERR_PTR(-EPERM);
	}
	return net;
}

static int aoe_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	u64 drops[__AOE_DROP_MAX] = { 0 };
	struct sk_buff *msg = NULL;
	char *iflist = NULL;
	bool inherited;
	struct net *net;
	void *hdr;
	int r, ret = -EMSGSIZE;

	net = nl_net(skb, info);
	if (IS_ERR(net))
		return PTR_ERR(net);
	iflist = kmalloc(AOE_IFLIST_MAX, GFP_KERNEL);
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg || !iflist) {
		ret = -ENOMEM;
		goto err;
	}
	hdr = genlmsg_put_reply(msg, info, &aoe_genl_family, 0,
				AOE_CMD_GET_INFO);
	if (!hdr)
		goto err;
	for (r = AOE_DROP_PAD + 1; r <= AOE_DROP_MAX; r++)
		drops[r] = aoe_drops_read(r);
	inherited = aoe_params_get_iflist(net, iflist, AOE_IFLIST_MAX);
	if (nla_put_string(msg, AOE_A_VERSION, AOE_VERSION) ||
	    nla_put_string(msg, AOE_A_IFLIST, iflist) ||
	    (inherited && nla_put_flag(msg, AOE_A_IFLIST_INHERIT)) ||
	    nla_put_u32(msg, AOE_A_DEADSECS, aoe_deadsecs) ||
	    nla_put_u32(msg, AOE_A_MAXOUT, aoe_maxout) ||
	    nla_put_u32(msg, AOE_A_DYNDEVS, aoe_dyndevs) ||
	    nla_put_u32(msg, AOE_A_MAXSECTORS, aoe_maxsectors) ||
	    nla_put_u32(msg, AOE_A_FAST_FAIL, READ_ONCE(aoe_fast_fail)) ||
	    nla_put_u32(msg, AOE_A_FLUSH_MODE, READ_ONCE(aoe_flush)) ||
	    nla_put_u32(msg, AOE_A_NTARGETS, READ_ONCE(aoe_tgt_count)) ||
	    nla_put_u32(msg, AOE_A_GENERATION, aoe_tgt_gen()) ||
	    put_drops(msg, AOE_A_DROPS, drops) ||
	    nla_put_u64_64bit(msg, AOE_A_EVICTIONS, aoe_target_evictions(),
			      AOE_A_PAD) ||
	    put_interfaces(msg, net))
		goto err;
	kfree(iflist);
	put_net(net);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	kfree(iflist);
	put_net(net);
	nlmsg_free(msg);
	return ret;
}

static int aoe_nl_discover(struct sk_buff *skb, struct genl_info *info)
{
	const char *ifname = NULL;
	struct net *net = NULL;
	int n;

	if (info->attrs[AOE_A_IFNAME])
		ifname = nla_data(info->attrs[AOE_A_IFNAME]);
	if (info->attrs[AOE_A_NETNS_FD]) {
		net = nl_net(skb, info);
		if (IS_ERR(net))
			return PTR_ERR(net);
	}
	n = aoe_discover_send(net, ifname);
	if (net)
		put_net(net);
	if (!n && ifname) {
		NL_SET_ERR_MSG(info->extack,
			       "interface missing, down or not in its namespace's interface list");
		return -ENODEV;
	}
	if (!n) {
		NL_SET_ERR_MSG(info->extack,
			       "no usable interface: none up or in the interface lists");
		return -ENODEV;
	}
	return 0;
}

static int aoe_nl_set_interfaces(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net;
	int ret;

	bool inherit = nla_get_flag(info->attrs[AOE_A_IFLIST_INHERIT]);

	if (!inherit && GENL_REQ_ATTR_CHECK(info, AOE_A_IFLIST))
		return -EINVAL;
	net = nl_net(skb, info);
	if (IS_ERR(net))
		return PTR_ERR(net);
	if (inherit && net_eq(net, &init_net)) {
		NL_SET_ERR_MSG(info->extack,
			       "the initial namespace's list is aoe_iflist: it inherits from no other");
		ret = -EINVAL;
	} else if (inherit) {
		ret = aoe_params_inherit_iflist(net);
	} else {
		ret = aoe_params_set_iflist(net,
					    nla_data(info->attrs[AOE_A_IFLIST]));
		if (ret)
			NL_SET_ERR_MSG(info->extack, "invalid interface list");
	}
	if (!ret)
		aoe_discover_send(net, NULL);
	put_net(net);
	return ret;
}

static int aoe_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	int shelf = -1, slot = -1;

	if (info->attrs[AOE_A_SHELF] && info->attrs[AOE_A_SLOT]) {
		u16 s;
		u8 l;
		int ret = get_addr(info, &s, &l);

		if (ret)
			return ret;
		shelf = s;
		slot = l;
	}
	aoe_target_flush(nla_get_flag(info->attrs[AOE_A_FLUSH_ALL]), shelf,
			 slot);
	return 0;
}

static int aoe_nl_revalidate(struct sk_buff *skb, struct genl_info *info)
{
	u16 shelf;
	u8 slot;
	int ret;

	ret = get_addr(info, &shelf, &slot);
	if (ret)
		return ret;
	ret = aoe_target_revalidate(shelf, slot);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "no such target");
	return ret;
}

static int aoe_nl_set_target(struct sk_buff *skb, struct genl_info *info)
{
	u16 shelf;
	u8 slot;
	int ret;

	ret = get_addr(info, &shelf, &slot);
	if (ret)
		return ret;
	/* the policy first: its values are checked before anything changes */
	ret = aoe_policy_nl_set(info, shelf, slot);
	if (ret || !info->attrs[AOE_A_FLUSH_MODE]) {
		if (ret == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no such target");
		return ret;	/* or nothing (more) to change */
	}
	ret = aoe_target_set_flush_mode(shelf, slot,
					nla_get_u32(info->attrs[AOE_A_FLUSH_MODE]));
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "no such target");
	return ret;
}

/*
 * A dump is refused until the module's init is done. The family exists
 * from its init step on, and a dump can outlive the request that started
 * it: one whose first part finds the socket's buffer full waits for the
 * next recvmsg(), which calls the dumpit. A failed init frees the module
 * whatever its reference count (the dump holds one) and
 * genl_unregister_family() does not end pending dumps, so that call would
 * run freed code. Doits need no gate: they run inside genl_rcv(), under the
 * cb_lock that genl_unregister_family() takes, and so does this start.
 */
static int aoe_nl_dump_start(struct netlink_callback *cb)
{
	if (!aoe_module_live()) {
		NL_SET_ERR_MSG(cb->extack, "aoe is still loading");
		return -EAGAIN;
	}
	return 0;
}

static const struct genl_ops aoe_nl_dump_ops[] = {
	{
		.cmd = AOE_CMD_GET_TARGET,
		.start = aoe_nl_dump_start,
		.doit = aoe_nl_get_target_doit,
		.dumpit = aoe_nl_get_target_dump,
	},
};

static const struct genl_small_ops aoe_nl_ops[] = {
	{
		.cmd = AOE_CMD_GET_INFO,
		.doit = aoe_nl_get_info,
	},
	{
		.cmd = AOE_CMD_DISCOVER,
		.doit = aoe_nl_discover,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = AOE_CMD_SET_INTERFACES,
		.doit = aoe_nl_set_interfaces,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = AOE_CMD_FLUSH,
		.doit = aoe_nl_flush,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = AOE_CMD_REVALIDATE,
		.doit = aoe_nl_revalidate,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = AOE_CMD_SET_TARGET,
		.doit = aoe_nl_set_target,
		.flags = GENL_ADMIN_PERM,
	},
	{
		/* puts frames on the wire and holds memory: also reads */
		.cmd = AOE_CMD_CTL,
		.doit = aoe_ctl_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family aoe_genl_family __ro_after_init = {
	.name = AOE_GENL_NAME,
	.version = AOE_GENL_VERSION,
	.maxattr = AOE_A_MAX,
	.policy = aoe_nl_policy,
	.module = THIS_MODULE,
	.ops = aoe_nl_dump_ops,
	.n_ops = ARRAY_SIZE(aoe_nl_dump_ops),
	.small_ops = aoe_nl_ops,
	.n_small_ops = ARRAY_SIZE(aoe_nl_ops),
	.resv_start_op = AOE_CMD_MAX + 1,
	.mcgrps = aoe_mcgrps,
	.n_mcgrps = ARRAY_SIZE(aoe_mcgrps),
};

int aoe_netlink_init(void)
{
	/* a dump makes progress: target attributes and one path fit */
	BUILD_BUG_ON(NLMSG_HDRLEN + AOE_NL_TARGET_MAX + AOE_NL_PATH_MAX >
		     NLMSG_GOODSIZE);
	return genl_register_family(&aoe_genl_family);
}

void *aoe_netlink_put_hdr(struct sk_buff *skb, u32 portid, u32 seq, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &aoe_genl_family, 0, cmd);
}

int aoe_netlink_unicast(struct net *net, struct sk_buff *skb, u32 portid)
{
	return genlmsg_unicast(net, skb, portid);
}

void aoe_netlink_uninit(void)
{
	genl_unregister_family(&aoe_genl_family);
}

MODULE_ALIAS_GENL_FAMILY(AOE_GENL_NAME);
