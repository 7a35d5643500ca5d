// SPDX-License-Identifier: GPL-2.0
/* aoekit: target identity and conflict memory (see aoe_ident.h). */
#include "aoe_ident.h"

enum aoe_ident_verdict aoe_ident_check(const struct aoe_identity *cur,
				       const struct aoe_identity *next,
				       bool strict)
{
	if (strcmp(cur->serial, next->serial))
		return AOE_IDV_SERIAL;
	if (strcmp(cur->model, next->model))
		return AOE_IDV_MODEL;
	if (strict && cur->lba48 != next->lba48)
		return AOE_IDV_LBA48;
	if (strict && cur->sectors != next->sectors)
		return AOE_IDV_CAPACITY;
	return AOE_IDV_MATCH;
}

const char *aoe_ident_verdict_name(enum aoe_ident_verdict v)
{
	switch (v) {
	case AOE_IDV_MATCH:
		return "match";
	case AOE_IDV_SERIAL:
		return "serial";
	case AOE_IDV_MODEL:
		return "model";
	case AOE_IDV_LBA48:
		return "lba48";
	case AOE_IDV_CAPACITY:
		return "capacity";
	}
	return "unknown";
}

static bool mac_eq(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, AOE_ETH_ALEN);
}

const struct aoe_conflict *aoe_conflict_find(const struct aoe_conflicts *c,
					     int32_t ifindex,
					     const uint8_t *mac, uint64_t now)
{
	int i;

	for (i = 0; i < AOE_CONFLICT_SLOTS; i++) {
		const struct aoe_conflict *e = &c->e[i];

		if (aoe_conflict_live(e, now) && e->ifindex == ifindex &&
		    mac_eq(e->mac, mac))
			return e;
	}
	return NULL;
}

struct aoe_conflict *aoe_conflict_add(struct aoe_conflicts *c,
					    int32_t ifindex, const uint8_t *mac,
					    const struct aoe_identity *id,
					    enum aoe_ident_verdict v,
					    uint64_t now)
{
	struct aoe_conflict *e = NULL;
	int i;

	for (i = 0; i < AOE_CONFLICT_SLOTS && !e; i++)
		if (c->e[i].ifindex == ifindex && mac_eq(c->e[i].mac, mac))
			e = &c->e[i];
	if (e && !aoe_conflict_live(e, now))
		e->since_ns = now;	/* expired: a new conflict */
	for (i = 0; i < AOE_CONFLICT_SLOTS && !e; i++)
		if (!aoe_conflict_live(&c->e[i], now)) {
			e = &c->e[i];
			e->since_ns = now;
		}
	if (!e) {
		/* full: the one refused longest ago goes */
		e = &c->e[0];
		for (i = 1; i < AOE_CONFLICT_SLOTS; i++)
			if (c->e[i].since_ns < e->since_ns)
				e = &c->e[i];
		e->since_ns = now;
	}
	e->ifindex = ifindex;
	memcpy(e->mac, mac, AOE_ETH_ALEN);
	e->verdict = (uint8_t)v;
	e->until_ns = now + AOE_CONFLICT_TTL_NS;
	e->sectors = id->sectors;
	memcpy(e->serial, id->serial, sizeof(e->serial));
	memcpy(e->model, id->model, sizeof(e->model));
	e->serial[sizeof(e->serial) - 1] = '\0';
	e->model[sizeof(e->model) - 1] = '\0';
	return e;
}

unsigned int aoe_conflict_count(const struct aoe_conflicts *c, uint64_t now)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < AOE_CONFLICT_SLOTS; i++)
		if (aoe_conflict_live(&c->e[i], now))
			n++;
	return n;
}

bool aoe_cand_take(struct aoe_cand_bucket *b, uint64_t now)
{
	uint64_t add;

	if (!b->primed) {
		b->primed = true;
		b->tokens = AOE_CAND_BURST;
		b->last_ns = now;
	}
	if (b->tokens >= AOE_CAND_BURST) {
		b->last_ns = now;	/* full: the refill starts now */
	} else if (now > b->last_ns) {
		add = (now - b->last_ns) / AOE_CAND_REFILL_NS;
		if (add >= AOE_CAND_BURST - b->tokens) {
			b->tokens = AOE_CAND_BURST;
			b->last_ns = now;
		} else {
			b->tokens += (uint32_t)add;
			b->last_ns += add * AOE_CAND_REFILL_NS;
		}
	}
	if (!b->tokens)
		return false;
	b->tokens--;
	return true;
}
