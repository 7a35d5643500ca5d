// SPDX-License-Identifier: GPL-2.0
/*
 * Failure policy per target (aoe(4) "FAILURE POLICY"): a target's own
 * deadsecs and fast-fail time over netlink, the module parameter
 * aoe_fast_fail, and the engine's hooks. The decisions are portable
 * (aoe_policy.c, unit-tested); the engine (io.h, fence.c, blkdev.c) asks
 * here for a target's deadline and runs fast-fail from its timer tick.
 *
 * Locking: a target's struct aoe_policy is written and read under its
 * lock (t->lock), except policy.deadsecs, one word that the blk-mq timeout
 * reads with READ_ONCE (a change applies at its next check, at most
 * AOE_RQ_CHECK_SECS later). A change from netlink and the timer tick are
 * serialised by the lock: the tick sees either the old or the new value.
 * Nothing here has a timer or work of its own; the state lives in the
 * target and goes with it, so rmmod has nothing to tear down.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>

#include "aoe_policy.h"
#include "ata.h"
#include "io.h"
#include "params.h"
#include "policy.h"

int aoe_fast_fail;

static int set_fast_fail(const char *val, const struct kernel_param *kp)
{
	u32 n;

	if (kstrtou32(val, 0, &n) || n > AOE_POLICY_SECS_MAX) {
		pr_err("aoe_fast_fail: '%.*s' rejected: must be 0 (off) or an integer from 1 to %u\n",
		       (int)strcspn(val, "\n"), val, AOE_POLICY_SECS_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(aoe_fast_fail, n);
	return 0;
}

static const struct kernel_param_ops fast_fail_ops = {
	.set = set_fast_fail, .get = param_get_int,
};

module_param_cb(aoe_fast_fail, &fast_fail_ops, &aoe_fast_fail, 0644);
MODULE_PARM_DESC(aoe_fast_fail, "Seconds a target's I/O waits while no path is usable before it fails, even within aoe_deadsecs (0: off, default).");

u32 aoe_policy_target_deadsecs(const struct aoe_target *t)
{
	return aoe_policy_deadsecs_of(READ_ONCE(t->policy.deadsecs),
				      READ_ONCE(aoe_deadsecs));
}

unsigned long aoe_policy_dead_jiffies(const struct aoe_target *t)
{
	/* at most AOE_POLICY_SECS_MAX: no overflow */
	return (unsigned long)aoe_policy_target_deadsecs(t) * HZ;
}

u32 aoe_policy_target_fast_fail(const struct aoe_target *t)
{
	return aoe_policy_fast_fail(&t->policy, READ_ONCE(aoe_fast_fail));
}

bool aoe_policy_no_path(const struct aoe_target *t)
{
	const struct aoe_path *p;

	list_for_each_entry(p, &t->paths, node)
		if (p->state == AOE_PATH_STATE_UP && p->payload &&
		    p->tmo.in_row < AOE_PATH_FAIL_EVENTS)
			return false;
	return true;
}

bool aoe_policy_target_tick(struct aoe_target *t, bool pending)
{
	u32 secs = aoe_policy_target_fast_fail(t);
	bool nopath;

	if (!secs && !t->policy.failing && !t->policy.nopath_since)
		return false;	/* off: no path walk */
	nopath = aoe_policy_no_path(t);
	if (!aoe_policy_tick(&t->policy, pending, nopath, jiffies, HZ, secs))
		return false;
	pr_warn("e%u.%u: no usable path for %u s: I/O failed (fast-fail); new I/O fails until a path answers, the target stays up (deadsecs %u)\n",
		t->shelf, t->slot, secs, aoe_policy_target_deadsecs(t));
	return true;
}

bool aoe_policy_refuse_io(struct aoe_target *t)
{
	if (!t->policy.failing)
		return false;
	if (!aoe_policy_target_fast_fail(t)) {
		t->policy.failing = false;	/* aoe_fast_fail turned off */
		return false;
	}
	return aoe_policy_refuse(&t->policy, aoe_policy_no_path(t),
				 t->last_rx);
}

int aoe_policy_put(struct sk_buff *skb, const struct aoe_target *t)
{
	const struct aoe_policy *p = &t->policy;
	u32 bits = (p->deadsecs ? AOE_POLICY_DEADSECS_OWN : 0) |
		   (p->fast_fail_set ? AOE_POLICY_FAST_FAIL_OWN : 0) |
		   (p->failing ? AOE_POLICY_FAILING : 0);

	if (nla_put_u32(skb, AOE_A_DEADSECS, aoe_policy_target_deadsecs(t)) ||
	    nla_put_u32(skb, AOE_A_FAST_FAIL, aoe_policy_target_fast_fail(t)) ||
	    nla_put_u32(skb, AOE_A_POLICY, bits) ||
	    nla_put_u64_64bit(skb, AOE_A_FAST_FAILS, p->fires, AOE_A_PAD))
		return -EMSGSIZE;
	return 0;
}

static void log_policy(const struct aoe_target *t)
{
	char ff[16] = "off";
	u32 secs = aoe_policy_target_fast_fail(t);

	if (secs)
		snprintf(ff, sizeof(ff), "%u s", secs);
	pr_info("e%u.%u: deadsecs %u%s, fast-fail %s%s\n", t->shelf, t->slot,
		aoe_policy_target_deadsecs(t),
		t->policy.deadsecs ? "" : " (aoe_deadsecs)", ff,
		t->policy.fast_fail_set ? "" : " (aoe_fast_fail)");
}

int aoe_policy_nl_set(struct genl_info *info, u16 shelf, u8 slot)
{
	struct nlattr *ad = info->attrs[AOE_A_DEADSECS];
	struct nlattr *af = info->attrs[AOE_A_FAST_FAIL];
	u32 dead, ff, *pd = NULL, *pf = NULL;
	enum aoe_policy_err err;
	struct aoe_target *t;

	if (!ad && !af)
		return 0;
	if (ad) {
		dead = nla_get_u32(ad);
		pd = &dead;
	}
	if (af) {
		ff = nla_get_u32(af);
		pf = &ff;
	}
	err = aoe_policy_check(pd, pf);
	if (err != AOE_POLICY_OK) {
		/* extack takes literals: the strings of aoe_policy_strerror() */
		if (err == AOE_POLICY_BAD_DEADSECS)
			NL_SET_ERR_MSG_ATTR(info->extack, ad,
					    AOE_POLICY_MSG_DEADSECS);
		else
			NL_SET_ERR_MSG_ATTR(info->extack, af,
					    AOE_POLICY_MSG_FAST_FAIL);
		return -EINVAL;
	}
	rcu_read_lock();
	t = aoe_target_find(shelf, slot);
	if (t)
		spin_lock_bh(&t->lock);
	if (!t || t->removed) {
		if (t)
			spin_unlock_bh(&t->lock);
		rcu_read_unlock();
		return -ENOENT;
	}
	/*
	 * The tick applies the change: with I/O, one comes within 10 ms (it
	 * may have been armed for an RTO away). deadsecs is read without the
	 * lock (blk-mq timeout): one store.
	 */
	if (pd)
		WRITE_ONCE(t->policy.deadsecs,
			   dead == AOE_POLICY_DEFAULT ? 0 : dead);
	aoe_policy_apply(&t->policy, NULL, pf, READ_ONCE(aoe_fast_fail));
	if (t->outstanding || !list_empty(&t->rq_queue) ||
	    !list_empty(&t->fenced))
		aoe_arm_timer(t);
	log_policy(t);
	spin_unlock_bh(&t->lock);
	rcu_read_unlock();
	return 0;
}
