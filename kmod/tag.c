// SPDX-License-Identifier: GPL-2.0
/*
 * Tags of a target's ATA frames: the scheme and the locking rules are at the
 * top of tag.h (everything under t->lock, nothing sleeps).
 */
#include <linux/hash.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "aoe_codec.h"
#include "tag.h"

/* Numbers skipped at most while a tag is still in the table (never, in practice) */
#define AOE_TAG_DRAWS	16

static struct hlist_head *bucket(struct aoe_tags *tt, u32 tag)
{
	return &tt->hash[hash_32(tag, tt->bits)];
}

static struct aoe_tag *lookup(struct aoe_tags *tt, u32 tag)
{
	struct aoe_tag *e;

	hlist_for_each_entry(e, bucket(tt, tag), node)
		if (e->tag == tag)
			return e;
	return NULL;
}

void aoe_tags_init(struct aoe_tags *tt)
{
	unsigned int i;

	tt->hash = tt->small;
	tt->bits = AOE_TAG_HASH_BITS;
	tt->count = 0;
	for (i = 0; i < ARRAY_SIZE(tt->small); i++)
		INIT_HLIST_HEAD(&tt->small[i]);
	for (i = 0; i < ARRAY_SIZE(tt->retired); i++)
		INIT_HLIST_NODE(&tt->retired[i].node);
	tt->retired_pos = 0;
	get_random_bytes(&tt->key, sizeof(tt->key));
	tt->next = get_random_u32();
}

static u16 tag_round(const void *key, u32 in)
{
	return (u16)siphash_1u32(in, key);
}

u32 aoe_tag_new(struct aoe_tags *tt)
{
	unsigned int i;
	u32 tag = 0;

	/*
	 * A tag comes back only after 2^31 transmissions: one still in the
	 * table then (a frame in flight that long) is skipped.
	 */
	for (i = 0; i < AOE_TAG_DRAWS; i++) {
		tag = aoe_tag_permute(tt->next++, tag_round, &tt->key);
		if (!lookup(tt, tag))
			break;
	}
	return tag;
}

void aoe_tags_free(struct aoe_tags *tt)
{
	if (tt->hash != tt->small)
		kfree(tt->hash);
	tt->hash = tt->small;
}

/* Twice the buckets, every entry moved over: O(entries), once per doubling. */
static void grow(struct aoe_tags *tt)
{
	unsigned int bits = tt->bits + 1, i, n = 1U << tt->bits;
	struct hlist_head *h;
	struct hlist_node *tmp;
	struct aoe_tag *e;

	h = kmalloc_array(1U << bits, sizeof(*h), GFP_ATOMIC | __GFP_NOWARN);
	if (!h)
		return;		/* longer chains, still correct */
	for (i = 0; i < 1U << bits; i++)
		INIT_HLIST_HEAD(&h[i]);
	for (i = 0; i < n; i++)
		hlist_for_each_entry_safe(e, tmp, &tt->hash[i], node) {
			hlist_del(&e->node);
			hlist_add_head(&e->node, &h[hash_32(e->tag, bits)]);
		}
	if (tt->hash != tt->small)
		kfree(tt->hash);
	tt->hash = h;
	tt->bits = bits;
}

void aoe_tag_add(struct aoe_tags *tt, struct aoe_tag *e, u32 tag,
		 enum aoe_tag_kind kind)
{
	e->tag = tag;
	e->kind = kind;
	hlist_add_head(&e->node, bucket(tt, tag));
	if (++tt->count > 2U << tt->bits && tt->bits < AOE_TAG_HASH_MAX_BITS)
		grow(tt);
}

void aoe_tag_del(struct aoe_tags *tt, struct aoe_tag *e)
{
	if (aoe_tag_in_table(e)) {
		hlist_del_init(&e->node);
		tt->count--;
	}
}

static void tag_retire(struct aoe_tags *tt, struct aoe_tag *e, bool owed)
{
	struct aoe_tag *r;

	if (!aoe_tag_in_table(e))
		return;
	aoe_tag_del(tt, e);
	r = &tt->retired[tt->retired_pos++ % AOE_TAG_RETIRED];
	aoe_tag_del(tt, r);	/* the oldest retired tag is forgotten */
	aoe_tag_add(tt, r, e->tag, AOE_TAG_OLD);
	r->owed = owed;
}

void aoe_tag_retire(struct aoe_tags *tt, struct aoe_tag *e)
{
	tag_retire(tt, e, true);
}

void aoe_tag_retire_answered(struct aoe_tags *tt, struct aoe_tag *e)
{
	tag_retire(tt, e, false);
}

struct aoe_tag *aoe_tag_find(struct aoe_tags *tt, u32 tag,
			     enum aoe_tag_kind kind)
{
	struct aoe_tag *e = lookup(tt, tag);

	return e && e->kind == kind ? e : NULL;
}
