// SPDX-License-Identifier: GPL-2.0
/*
 * The stale-write fence: the I/O engine's (io.h) side of it. A write
 * whose frame ended while a copy of it may still be in the network leaves a
 * ghost of its sectors (aoe_fence.h: the set, the fence time and why); a new
 * write overlapping a ghost is held on target->fenced until the ghost goes
 * (the copy was answered, or the fence time passed); a read or write
 * overlapping a held write waits behind it, so requests to the same
 * sectors still go out in the order they came. Held requests keep their
 * deadline (aoe_deadsecs from their start, the blk-mq timeout behind it)
 * and fail with everything else when the target fails or goes.
 *
 * Duplicates the network makes on its own: an answer to a tag already
 * retired (a "late" drop) that no ghost waited for, and that is not the
 * one answer owed to a transmission retired unanswered (a frame timed out
 * and sent again, both copies answered: tag.h), shows that the path
 * delivers some frames twice; for
 * AOE_FENCE_SUSPECT_SECS after that, every write answered on that path
 * leaves a ghost for the fence time from its send. A late answer a ghost
 * waited for is explained, not a duplicate, and lifts nothing: the ghost
 * keeps its time (a twin of that copy, if the network made one, may be
 * held as long again).
 *
 * Copies held on this host (zero-copy frames, io.c) are known: a write
 * answered through another copy ends when its last copy is let go, and
 * leaves a ghost from then (the copy is on the wire only now); a write
 * whose request failed while a copy was held (a zombie) fences its
 * sectors itself while it is held, however long, then leaves a ghost.
 *
 * Locking: the target's lock (t->lock, BH-safe) is held by every caller,
 * as for the rest of the engine, and aoe_zombie_lock inside it to look at
 * the zombies; nothing here sleeps or allocates. The ghost set lives in
 * the target and dies with it; held requests are on target->fenced only.
 */
#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>

#include "aoe_fence.h"
#include "ata.h"
#include "fence.h"
#include "io.h"
#include "params.h"
#include "policy.h"
#include "steer.h"
#include "target.h"

static bool rq_is_write(struct request *rq)
{
	return rq_data_dir(rq) == WRITE;
}

/*
 * Does a request held before @upto (all of them: NULL) overlap sectors
 * [@lba, @lba + @n)? For a read (!@write) only held writes count.
 */
static bool held_overlap(struct aoe_target *t, struct aoe_rq *upto, u64 lba,
			 u32 n, bool write)
{
	struct aoe_rq *h;

	list_for_each_entry(h, &t->fenced, node) {
		struct request *hrq = blk_mq_rq_from_pdu(h);

		if (h == upto)
			break;
		if ((write || rq_is_write(hrq)) &&
		    aoe_fence_overlap(lba, n, blk_rq_pos(hrq),
				      blk_rq_sectors(hrq)))
			return true;
	}
	return false;
}

/* Write zombies in the bucket of @t's address (io.h): mostly none. */
static bool zombie_writes(const struct aoe_target *t)
{
	return READ_ONCE(aoe_zombie_writes[aoe_zombie_bucket(t->shelf,
							     t->slot)]);
}

/*
 * Does a zombie write of @t's shelf.slot (its request ended, a copy still
 * held on this host, or just let go: io.c) overlap sectors [@lba, @lba +
 * @n)? Nothing bounds when that copy leaves, so no ghost can stand for
 * it: it fences its sectors itself until it lets go, then leaves a ghost
 * (io.c zombie_released()). It may be a previous target's of the same
 * address (torn down, found again).
 */
static bool zombie_overlap(const struct aoe_target *t, u64 lba, u32 n)
{
	struct aoe_io *io;
	bool hit = false;

	spin_lock(&aoe_zombie_lock);
	list_for_each_entry(io, &aoe_zombies, node) {
		if (io->write && io->z_shelf == t->shelf &&
		    io->z_slot == t->slot &&
		    aoe_fence_overlap(lba, n, io->lba,
				      io->len >> SECTOR_SHIFT)) {
			hit = true;
			break;
		}
	}
	spin_unlock(&aoe_zombie_lock);
	return hit;
}

static bool must_wait(struct aoe_target *t, struct aoe_rq *r, u64 now)
{
	struct request *rq = blk_mq_rq_from_pdu(r);
	bool write = rq_is_write(rq);
	u64 lba = blk_rq_pos(rq);
	u32 n = blk_rq_sectors(rq);

	return (write && aoe_fence_blocks(&t->fence, lba, n, now)) ||
	       (write && zombie_writes(t) && zombie_overlap(t, lba, n)) ||
	       held_overlap(t, r, lba, n, write);
}

bool aoe_fence_hold(struct aoe_target *t, struct request *rq)
{
	struct aoe_rq *r = blk_mq_rq_to_pdu(rq);
	u64 now;

	/*
	 * The common case: nothing fenced, nothing held, no write zombie of
	 * an address in this one's bucket (one of this target's is made
	 * under its lock, held here; one of a target of this address before
	 * it was made).
	 */
	if (!t->fence.n && list_empty(&t->fenced) && !zombie_writes(t))
		return false;
	now = ktime_get_ns();
	/* not on t->fenced yet: held_overlap() looks at all of it */
	if (!must_wait(t, r, now))
		return false;
	r->held_ns = now;
	list_move_tail(&r->node, &t->fenced);
	if (rq_is_write(rq))
		t->cnt.fence_held++;
	return true;
}

static void account_held(struct aoe_target *t, struct aoe_rq *r, u64 now)
{
	if (rq_is_write(blk_mq_rq_from_pdu(r)) && now > r->held_ns)
		t->cnt.fence_held_us += div_u64(now - r->held_ns,
						NSEC_PER_USEC);
}

void aoe_fence_release(struct aoe_target *t, u64 now, bool deadlines,
		       struct list_head *done)
{
	unsigned long dead = aoe_policy_dead_jiffies(t);
	struct aoe_rq *r, *tmp;
	LIST_HEAD(go);

	aoe_fence_expire(&t->fence, now);
	list_for_each_entry_safe(r, tmp, &t->fenced, node) {
		struct request *rq = blk_mq_rq_from_pdu(r);

		if (deadlines && time_after(jiffies, r->start + dead)) {
			account_held(t, r, now);
			r->status = BLK_STS_IOERR;
			r->sent = blk_rq_bytes(rq);
			r->done = r->sent;
			list_move_tail(&r->node, done);
			continue;
		}
		if (must_wait(t, r, now))
			continue;
		account_held(t, r, now);
		list_move_tail(&r->node, &go);
	}
	/* first in line: they came before what rq_queue holds */
	list_splice(&go, &t->rq_queue);
}

void aoe_fence_ghost(struct aoe_target *t, u64 lba, u32 sectors,
		     bool has_tag, u32 tag, int ifindex, u64 sent_ns,
		     u32 rto_us)
{
	u64 expires = sent_ns + (u64)aoe_fence_time_us(rto_us) * NSEC_PER_USEC;
	u64 now = ktime_get_ns();

	/* its frames may wait that long to leave another CPU (steer.c) */
	if (t->tx_queued)
		expires += (u64)AOE_STEER_TX_MAX_MS * NSEC_PER_MSEC;
	if (!sectors || expires <= now)
		return;
	/*
	 * The target's tick expires ghosts only while it has work: an idle
	 * one's may be out of date, and a full set would widen one of them.
	 */
	aoe_fence_expire(&t->fence, now);
	aoe_fence_add(&t->fence, lba, sectors, expires, has_tag, tag, ifindex,
		      sent_ns);
	t->cnt.fence_ghosts++;
}

static bool dup_suspect(const struct aoe_path *p, u64 now)
{
	return p && p->fence_dup_until > now;
}

void aoe_fence_answered_on(struct aoe_target *t, struct aoe_path *p,
			   u64 lba, u32 sectors, u64 sent_ns, u32 rto_us,
			   u64 now)
{
	if (!dup_suspect(p, now))
		return;
	aoe_fence_ghost(t, lba, sectors, false, 0, p->ifindex, sent_ns, rto_us);
}

void aoe_fence_late(struct aoe_target *t, struct aoe_path *p, u32 tag,
		    bool owed, u64 now)
{
	struct aoe_ghost g;

	/* only a ghost still in force explains it (see aoe_fence_ghost()) */
	aoe_fence_expire(&t->fence, now);
	if (t->fence.n && aoe_fence_answered(&t->fence, tag, &g))
		return;
	/* the answer to a copy the initiator sent itself: no twin */
	if (owed)
		return;
	if (p)
		p->fence_dup_until = now + AOE_FENCE_SUSPECT_SECS * NSEC_PER_SEC;
}

void aoe_fence_unhold_all(struct aoe_target *t)
{
	list_splice_init(&t->fenced, &t->rq_queue);
}
