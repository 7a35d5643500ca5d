// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: a target's failure policy (deadsecs, fast-fail). Portable:
 * aoe_policy.h.
 */
#include "aoe_policy.h"

static bool after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
}

static bool in_range(const uint32_t *v, uint32_t min)
{
	return !v || *v == AOE_POLICY_DEFAULT ||
	       (*v >= min && *v <= AOE_POLICY_SECS_MAX);
}

enum aoe_policy_err aoe_policy_check(const uint32_t *deadsecs,
				     const uint32_t *fast_fail)
{
	if (!in_range(deadsecs, 1))
		return AOE_POLICY_BAD_DEADSECS;
	if (!in_range(fast_fail, 0))
		return AOE_POLICY_BAD_FAST_FAIL;
	return AOE_POLICY_OK;
}

const char *aoe_policy_strerror(enum aoe_policy_err e)
{
	switch (e) {
	case AOE_POLICY_OK:
		return "ok";
	case AOE_POLICY_BAD_DEADSECS:
		return AOE_POLICY_MSG_DEADSECS;
	case AOE_POLICY_BAD_FAST_FAIL:
		return AOE_POLICY_MSG_FAST_FAIL;
	}
	return "invalid failure policy";
}

void aoe_policy_apply(struct aoe_policy *p, const uint32_t *deadsecs,
		      const uint32_t *fast_fail, uint32_t module_fast_fail)
{
	if (deadsecs)
		p->deadsecs = *deadsecs == AOE_POLICY_DEFAULT ? 0 : *deadsecs;
	if (fast_fail) {
		p->fast_fail_set = *fast_fail != AOE_POLICY_DEFAULT;
		p->fast_fail = p->fast_fail_set ? *fast_fail : 0;
		p->nopath_since = 0;	/* the clock starts again */
	}
	if (!aoe_policy_fast_fail(p, (int)module_fast_fail))
		p->failing = false;
}

static uint32_t clamp_secs(int v, uint32_t min)
{
	if (v < (int)min)
		return min;
	if ((uint32_t)v > AOE_POLICY_SECS_MAX)
		return AOE_POLICY_SECS_MAX;
	return (uint32_t)v;
}

uint32_t aoe_policy_deadsecs(const struct aoe_policy *p, int module_deadsecs)
{
	return aoe_policy_deadsecs_of(p->deadsecs, module_deadsecs);
}

uint32_t aoe_policy_deadsecs_of(uint32_t own, int module_deadsecs)
{
	return own ? own : clamp_secs(module_deadsecs, 1);
}

uint32_t aoe_policy_fast_fail(const struct aoe_policy *p,
			      int module_fast_fail)
{
	return p->fast_fail_set ? p->fast_fail :
				  clamp_secs(module_fast_fail, 0);
}

bool aoe_policy_tick(struct aoe_policy *p, bool pending, bool nopath,
		     unsigned long now, unsigned long hz, uint32_t ff_secs)
{
	if (!nopath) {
		p->failing = false;
		p->nopath_since = 0;
		return false;
	}
	if (!ff_secs)
		p->failing = false;	/* turned off, also by the module's */
	if (!pending || !ff_secs) {
		p->nopath_since = 0;
		return false;
	}
	if (!p->nopath_since) {
		p->nopath_since = now | 1;
		return false;
	}
	/* ff_secs <= AOE_POLICY_SECS_MAX: no overflow with any HZ */
	if (!after(now, p->nopath_since + (unsigned long)ff_secs * hz))
		return false;
	p->nopath_since = 0;
	p->failing = true;
	p->failed_at = now;
	p->fires++;
	return true;
}

bool aoe_policy_refuse(struct aoe_policy *p, bool nopath,
		       unsigned long last_rx)
{
	if (!p->failing)
		return false;
	if (nopath && !after(last_rx, p->failed_at))
		return true;
	p->failing = false;
	return false;
}
