/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stale-write fence (fence.c): a new write overlapping a copy of an
 * earlier write that may still be in the network waits until that copy is
 * answered or the fence time has passed; reads wait behind the held writes
 * they overlap. The ghost set is portable (aoe_fence.h).
 *
 * Locking: everything here runs under the target's lock (BH-safe), like the
 * engine (io.h) that calls it; nothing sleeps or allocates. A held request
 * is on target->fenced through its aoe_rq node, never on rq_queue at the
 * same time.
 */
#ifndef AOE_FENCE_KMOD_H
#define AOE_FENCE_KMOD_H

#include <linux/blk-mq.h>
#include <linux/list.h>

#include "target.h"

/* How long a path stays suspected of duplicating frames after a sign. */
#define AOE_FENCE_SUSPECT_SECS	60

/*
 * Hold @rq (not yet sent at all) when it must wait: a write overlapping a
 * ghost or a held request, a read overlapping a held write. Moves it from
 * rq_queue to target->fenced and returns true.
 */
bool aoe_fence_hold(struct aoe_target *t, struct request *rq);

/*
 * Expire ghosts, send held requests that may go now back to the head of
 * rq_queue (in their order), fail those older than aoe_deadsecs (@deadlines)
 * into @done.
 */
void aoe_fence_release(struct aoe_target *t, u64 now, bool deadlines,
		       struct list_head *done);

/*
 * A copy of a write to [@lba, @lba + @sectors), sent on @ifindex at
 * @sent_ns with the path's RTO @rto_us, may still be in the network: fence
 * its sectors for the fence time from its send (with @has_tag, its late
 * answer to @tag is explained: no sign of duplication).
 */
void aoe_fence_ghost(struct aoe_target *t, u64 lba, u32 sectors,
		     bool has_tag, u32 tag, int ifindex, u64 sent_ns,
		     u32 rto_us);

/*
 * A write to [@lba, @lba + @sectors) was answered on @p through a copy sent
 * at @sent_ns with RTO @rto_us: on a path suspected of duplicating, fence
 * the sectors for the fence time from that send (twins).
 */
void aoe_fence_answered_on(struct aoe_target *t, struct aoe_path *p,
			   u64 lba, u32 sectors, u64 sent_ns, u32 rto_us,
			   u64 now);

/*
 * A late answer (retired @tag) came over @p (NULL: no path of ours): a
 * ghost waiting for it explains it and keeps its time (a twin of that copy
 * may still be out); so does @owed, the first answer to a transmission
 * retired before it was answered (the initiator sent the frame again, or
 * gave up on it: tag.h); else @p is suspected of duplicating for a while.
 */
void aoe_fence_late(struct aoe_target *t, struct aoe_path *p, u32 tag,
		    bool owed, u64 now);

/* Every held request back on rq_queue, e.g. to fail them all. */
void aoe_fence_unhold_all(struct aoe_target *t);

#endif
