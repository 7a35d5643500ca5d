/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aoekit: the stale-write fence in portable C (module and unit tests).
 *
 * A "ghost" is a copy of a write that may still be in the network after
 * its frame ended: a transmission presumed lost (timed out, overtaken,
 * sent on a path that failed since) whose frame was then answered through
 * another transmission, or failed; or any write answered on a path that
 * has shown duplicated frames. Until its expiry, a new write overlapping
 * its sectors must wait (that copy, landing later, would overwrite the new
 * data with old). The late answer to a ghost's one unanswered transmission
 * explains it (no sign of duplication) but does not lift it: that copy has
 * landed, but a twin the network made of it may be held as long again.
 *
 * The set is a small array per target (AOE_FENCE_SLOTS): empty in lossless
 * operation, so the check on submission costs one comparison. A full set
 * merges the new ghost into the entry whose range grows least (a superset,
 * never a lost ghost). Times are nanoseconds of a monotonic clock.
 *
 * Fence time (aoe_fence_time_us()): AOE_FENCE_RTO_MULT times the path's
 * RTO at the send, at least AOE_FENCE_MIN_US and at most AOE_FENCE_MAX_US.
 * The RTO is srtt + 4 rttvar, backed off and raised by spurious timeouts
 * (aoe_flow.h); a copy still out after several of them is held by
 * something other than queueing that the RTT estimate has seen, so the
 * floor is one second, the recommended maximum transit delay of an IEEE
 * 802.1Q bridge, and the cap 4 s, that standard's absolute maximum (a
 * bridge discards a frame held longer) and AOE_RTO_MAX_US. A write answered
 * on a path that has shown duplicates leaves a ghost for the same fence
 * time from its send: its twin may take another way or be held on its own
 * (a few RTOs do not bound that). A network that holds a frame longer than
 * the fence time defeats the fence: what the target must honour is in
 * aoe(4).
 */
#ifndef AOE_FENCE_H
#define AOE_FENCE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define AOE_FENCE_SLOTS		16
#define AOE_FENCE_RTO_MULT	4
#define AOE_FENCE_MIN_US	1000000u	/* 1 s */
#define AOE_FENCE_MAX_US	4000000u	/* 4 s */

struct aoe_ghost {
	uint64_t lba;		/* first sector */
	uint64_t end;		/* one past the last */
	uint64_t expires_ns;
	uint64_t sent_ns;	/* when the copy of @tag went out */
	uint32_t tag;		/* its answer clears the ghost (if @has_tag) */
	int ifindex;		/* where that copy went */
	bool has_tag;
};

struct aoe_fence {
	uint32_t n;
	struct aoe_ghost g[AOE_FENCE_SLOTS];
};

/* How long a copy that may still be out is waited for, from its send. */
uint32_t aoe_fence_time_us(uint32_t rto_us);

static inline void aoe_fence_init(struct aoe_fence *f)
{
	f->n = 0;
}

/*
 * Record a ghost of sectors [@lba, @lba + @count) until @expires_ns; with
 * @has_tag, an answer to @tag (aoe_fence_answered()) is explained by it.
 * Returns false when it was merged into another entry (the set was full).
 */
bool aoe_fence_add(struct aoe_fence *f, uint64_t lba, uint32_t count,
		   uint64_t expires_ns, bool has_tag, uint32_t tag,
		   int ifindex, uint64_t sent_ns);

/*
 * The copy with @tag was answered (late): is there a ghost waiting for it?
 * If so it is copied to *@out and stays until it expires, no longer
 * waiting for @tag (that copy landed; a twin of it may not have), and the
 * answer is explained: true.
 */
bool aoe_fence_answered(struct aoe_fence *f, uint32_t tag,
			struct aoe_ghost *out);

/* Drop expired ghosts. */
void aoe_fence_expire(struct aoe_fence *f, uint64_t now_ns);

/* The earliest expiry among the ghosts, 0 when there is none. */
uint64_t aoe_fence_next_expiry(const struct aoe_fence *f);

/*
 * Does a live ghost overlap sectors [@lba, @lba + @count)? Returns the
 * latest expiry among those that do, 0 when none does.
 */
uint64_t aoe_fence_blocks(const struct aoe_fence *f, uint64_t lba,
			  uint32_t count, uint64_t now_ns);

/* Do sector ranges [@a, @a + @an) and [@b, @b + @bn) overlap? */
static inline bool aoe_fence_overlap(uint64_t a, uint32_t an, uint64_t b,
				     uint32_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

#ifdef __cplusplus
}
#endif

#endif
