/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aoekit: target identity, conflict memory and candidate admission, in
 * portable C (module and unit tests).
 *
 * A target's identity is what its ATA IDENTIFY says: serial number, model,
 * capacity (sectors) and LBA48. Two devices that answer for the same
 * shelf.slot with a different identity are two disks: a path to the second
 * one (a local interface x target MAC) must never carry the first one's
 * I/O. The firmware revision is not compared (a firmware update must not
 * refuse a port), nor is the config string (the target announces it and
 * Query Config set/force-set change it at run time).
 *
 * aoe_ident_check() compares an answer with the identity; capacity and
 * LBA48 only where @strict (a new or returning path). Differences are
 * tested in that order, so AOE_IDV_CAPACITY means the same serial, model
 * and LBA48: the same device resized (a target restarted on a bigger file),
 * which callers take as a revalidate takes it, never as an address conflict
 * (aoe_ident_same_device()).
 *
 * Conflict memory: the paths refused as another device, at most
 * AOE_CONFLICT_SLOTS per target, each for AOE_CONFLICT_TTL_NS; a full set
 * replaces an expired entry, else the one refused longest ago (a spoofer can
 * rotate it: each path it pushes out is checked again, as a new candidate,
 * rate-limited). Expired entries are neither matched nor shown.
 *
 * Candidate admission: a token bucket per target (AOE_CAND_BURST checks at
 * once, then one per AOE_CAND_REFILL_NS), so announcements of made-up MACs
 * cost a bounded number of IDENTIFY checks. Times are nanoseconds of a
 * monotonic clock.
 */
#ifndef AOE_IDENT_H
#define AOE_IDENT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#endif

#include "aoe_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AOE_CONFLICT_SLOTS	4
#define AOE_CONFLICT_TTL_NS	(300ULL * 1000000000ULL)
#define AOE_CAND_BURST		4
#define AOE_CAND_REFILL_NS	(2ULL * 1000000000ULL)

/* What differs between an identity and an answer (first difference). */
enum aoe_ident_verdict {
	AOE_IDV_MATCH,
	AOE_IDV_SERIAL,
	AOE_IDV_MODEL,
	AOE_IDV_LBA48,
	AOE_IDV_CAPACITY,
};

/*
 * Is @next the device of identity @cur? Serial and model always; LBA48 and
 * capacity only when @strict.
 */
enum aoe_ident_verdict aoe_ident_check(const struct aoe_identity *cur,
				       const struct aoe_identity *next,
				       bool strict);
/* The same device (perhaps resized): not an address conflict. */
static inline bool aoe_ident_same_device(enum aoe_ident_verdict v)
{
	return v == AOE_IDV_MATCH || v == AOE_IDV_CAPACITY;
}
/* "match", "serial", "model", "lba48", "capacity". */
const char *aoe_ident_verdict_name(enum aoe_ident_verdict v);

/* One refused path: local interface x target MAC, and what it answered. */
struct aoe_conflict {
	int32_t ifindex;		/* 0: a free slot */
	uint8_t mac[AOE_ETH_ALEN];
	uint8_t verdict;		/* enum aoe_ident_verdict */
	uint64_t since_ns;		/* first refused (this entry) */
	uint64_t until_ns;		/* remembered until */
	uint64_t sectors;
	char serial[21];
	char model[41];
};

struct aoe_conflicts {
	struct aoe_conflict e[AOE_CONFLICT_SLOTS];
};

/* The entry of (@ifindex, @mac) if it is remembered at @now, else NULL. */
const struct aoe_conflict *aoe_conflict_find(const struct aoe_conflicts *c,
					     int32_t ifindex,
					     const uint8_t *mac, uint64_t now);
/*
 * Remember (@ifindex, @mac) refused at @now as @id (@v: what differed);
 * refreshes its entry if it has one. Returns the entry.
 */
struct aoe_conflict *aoe_conflict_add(struct aoe_conflicts *c,
					    int32_t ifindex, const uint8_t *mac,
					    const struct aoe_identity *id,
					    enum aoe_ident_verdict v,
					    uint64_t now);
/* Entries remembered at @now. */
unsigned int aoe_conflict_count(const struct aoe_conflicts *c, uint64_t now);
/* Is entry @e remembered at @now? */
static inline bool aoe_conflict_live(const struct aoe_conflict *e,
				     uint64_t now)
{
	return e->ifindex && now < e->until_ns;
}

/* Token bucket for candidate checks; zeroed = full at the first call. */
struct aoe_cand_bucket {
	uint64_t last_ns;
	uint32_t tokens;
	bool primed;
};

/* Take one check at @now: true if allowed. */
bool aoe_cand_take(struct aoe_cand_bucket *b, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif /* AOE_IDENT_H */
