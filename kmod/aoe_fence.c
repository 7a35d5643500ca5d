// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: the stale-write fence's ghost set. Portable: aoe_fence.h.
 */
#include "aoe_fence.h"

uint32_t aoe_fence_time_us(uint32_t rto_us)
{
	uint64_t t = (uint64_t)rto_us * AOE_FENCE_RTO_MULT;

	if (t < AOE_FENCE_MIN_US)
		t = AOE_FENCE_MIN_US;
	if (t > AOE_FENCE_MAX_US)
		t = AOE_FENCE_MAX_US;
	return (uint32_t)t;
}

static uint64_t span(uint64_t a, uint64_t b)
{
	return b - a;
}

bool aoe_fence_add(struct aoe_fence *f, uint64_t lba, uint32_t count,
		   uint64_t expires_ns, bool has_tag, uint32_t tag,
		   int ifindex, uint64_t sent_ns)
{
	struct aoe_ghost *g;
	uint64_t end = lba + count, best_grow = 0;
	uint32_t i, best = 0;

	if (!count)
		return true;
	if (f->n < AOE_FENCE_SLOTS) {
		g = &f->g[f->n++];
		g->lba = lba;
		g->end = end;
		g->expires_ns = expires_ns;
		g->sent_ns = sent_ns;
		g->tag = tag;
		g->ifindex = ifindex;
		g->has_tag = has_tag;
		return true;
	}
	/* full: widen the entry that grows least; it keeps the later expiry */
	for (i = 0; i < f->n; i++) {
		uint64_t lo = f->g[i].lba < lba ? f->g[i].lba : lba;
		uint64_t hi = f->g[i].end > end ? f->g[i].end : end;
		uint64_t grow = span(lo, hi) - span(f->g[i].lba, f->g[i].end);

		if (i == 0 || grow < best_grow) {
			best = i;
			best_grow = grow;
		}
	}
	g = &f->g[best];
	if (lba < g->lba)
		g->lba = lba;
	if (end > g->end)
		g->end = end;
	if (expires_ns > g->expires_ns)
		g->expires_ns = expires_ns;
	g->has_tag = false;	/* one answer no longer accounts for it all */
	return false;
}

static void remove_at(struct aoe_fence *f, uint32_t i)
{
	f->g[i] = f->g[--f->n];
}

bool aoe_fence_answered(struct aoe_fence *f, uint32_t tag,
			struct aoe_ghost *out)
{
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		struct aoe_ghost *g = &f->g[i];

		if (!g->has_tag || g->tag != tag)
			continue;
		*out = *g;
		g->has_tag = false;
		return true;
	}
	return false;
}

void aoe_fence_expire(struct aoe_fence *f, uint64_t now_ns)
{
	uint32_t i = 0;

	while (i < f->n) {
		if (f->g[i].expires_ns <= now_ns)
			remove_at(f, i);
		else
			i++;
	}
}

uint64_t aoe_fence_next_expiry(const struct aoe_fence *f)
{
	uint64_t next = 0;
	uint32_t i;

	for (i = 0; i < f->n; i++)
		if (!next || f->g[i].expires_ns < next)
			next = f->g[i].expires_ns;
	return next;
}

uint64_t aoe_fence_blocks(const struct aoe_fence *f, uint64_t lba,
			  uint32_t count, uint64_t now_ns)
{
	uint64_t until = 0;
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		const struct aoe_ghost *g = &f->g[i];

		if (g->expires_ns <= now_ns || !count || lba >= g->end ||
		    g->lba >= lba + count)
			continue;
		if (g->expires_ns > until)
			until = g->expires_ns;
	}
	return until;
}
