/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tags of a target's ATA frames: unpredictable, unique, found in O(1).
 *
 * Every transmission of a frame gets a fresh tag of 31 bits (bit 31,
 * AOE_TAG_USER, stays clear for userland's probes): the target's
 * transmissions are numbered (from a random start) and the number goes
 * through a secret permutation of the 2^31 tags (aoe_tag_permute(): a
 * Feistel network whose round function is SipHash under a random key of
 * the target's). So no two of a target's last 2^31 transmissions share a
 * tag: an answer however late (the table below remembers only the last
 * AOE_TAG_RETIRED retired tags, a millisecond's worth at full speed) is
 * never taken for a newer transmission's, whose data would then go to the
 * wrong request or acknowledge the wrong write. And without the key no
 * tag says anything about another one: a node on the segment that forges
 * answers hits one of the N frames in flight with a probability of about
 * 2N / 2^31 per forged frame (a retransmitted frame also takes the answer
 * to its previous transmission), whatever it saw or sent before.
 *
 * The table holds the current and the previous transmission's tag of each
 * frame in flight and the last AOE_TAG_RETIRED retired tags (of frames
 * that ended or were sent again twice): it tells a late answer from one
 * without a tag, and a twin from the one answer owed (fence.c). A new tag
 * found there anyway (after 2^31 transmissions) is skipped. The table is
 * a hash of chained buckets keyed by tag, grown as the entries grow
 * (aoe_tag_add()); each entry says whether its tag is a frame's current
 * tag, its previous one or a retired one.
 *
 * Locking: a target's struct aoe_tags and every struct aoe_tag in it are
 * protected by t->lock (BH-safe), held by every caller. Nothing here
 * sleeps or allocates; entries live in their frame (struct aoe_io) or in the
 * target, and a frame's entries leave the table before it is freed.
 */
#ifndef AOE_TAG_H
#define AOE_TAG_H

#include <linux/list.h>
#include <linux/siphash.h>
#include <linux/types.h>

#define AOE_TAG_HASH_BITS	7	/* 128 buckets per target to start with */
#define AOE_TAG_HASH_MAX_BITS	14	/* grown up to 16384 */
#define AOE_TAG_RETIRED		64	/* retired tags remembered per target */

enum aoe_tag_kind {
	AOE_TAG_CUR,		/* a frame's current transmission */
	AOE_TAG_PREV,		/* its previous one: the answer still counts */
	AOE_TAG_OLD,		/* retired: an answer is late */
};

struct aoe_tag {
	struct hlist_node node;	/* unhashed (zeroed) when not in a table */
	u32 tag;
	u8 kind;		/* enum aoe_tag_kind */
	bool owed;		/* AOE_TAG_OLD: retired before its answer came */
};

struct aoe_tags {
	struct hlist_head *hash;	/* 1 << bits buckets: small, or grown */
	unsigned int bits;
	unsigned int count;		/* entries in the table */
	struct hlist_head small[1 << AOE_TAG_HASH_BITS];
	struct aoe_tag retired[AOE_TAG_RETIRED];
	unsigned int retired_pos;
	siphash_key_t key;		/* the tags' permutation */
	u32 next;			/* the next transmission's number */
};

/* An empty table in @tt (which must not move while it is in use). */
void aoe_tags_init(struct aoe_tags *tt);
/* Free what the table allocated as it grew (its entries are gone). */
void aoe_tags_free(struct aoe_tags *tt);

/* The next transmission's tag: in no entry of @tt. */
u32 aoe_tag_new(struct aoe_tags *tt);

/*
 * Enter @e as @tag of @kind. @e must not be in a table. The table doubles
 * its buckets when it holds more than two entries a bucket (GFP_ATOMIC; it
 * stays as it is when that fails), so a lookup stays O(1) whatever
 * aoe_maxout and the targets' buffer counts allow in flight.
 */
void aoe_tag_add(struct aoe_tags *tt, struct aoe_tag *e, u32 tag,
		 enum aoe_tag_kind kind);

/* Take @e out of @tt (nothing when it is in no table). */
void aoe_tag_del(struct aoe_tags *tt, struct aoe_tag *e);

/*
 * Take @e out and remember its tag as retired (nothing when not in a table):
 * aoe_tag_retire() for a transmission whose answer has not come (the frame
 * was sent again, failed, or ended with another copy's answer), so the first
 * late answer to it is the one the initiator's own copy owed, no twin;
 * aoe_tag_retire_answered() for the one that was just answered (or refused),
 * so any later answer to it is a twin of that copy.
 */
void aoe_tag_retire(struct aoe_tags *tt, struct aoe_tag *e);
void aoe_tag_retire_answered(struct aoe_tags *tt, struct aoe_tag *e);

/* The entry for @tag if it is of @kind, else NULL. O(1) expected. */
struct aoe_tag *aoe_tag_find(struct aoe_tags *tt, u32 tag,
			     enum aoe_tag_kind kind);

static inline bool aoe_tag_in_table(const struct aoe_tag *e)
{
	return !hlist_unhashed(&e->node);
}

#endif
