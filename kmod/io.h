/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I/O engine's internal interface, shared by its files (the rest of the
 * module uses ata.h). The engine: requests split into ATA frames, tags,
 * per-path windows, retransmission with a fresh tag on the next healthy
 * path, deadlines.
 *
 *   io.c        a frame's life: allocation, request range walks, zero-copy
 *               lifetime, its end (stale-write fence, accounting to its
 *               request), draining, zombies, ending requests, failing a
 *               target's I/O, the blk-mq timeout; init and teardown
 *   send.c      path choice, skbs, transmission with a fresh tag, the resend
 *               queue, splitting, submission, paths that go away or shrink
 *   receive.c   answers: tag lookup, the answering path, reservations
 *   timers.c    the tick: RTO, retransmission, fast retransmit, deadlines
 *   identify.c  IDENTIFY DEVICE over exactly one path
 *   flush.c     cache flush and FUA
 *
 * Locking: everything in the engine runs under its target's lock, t->lock
 * (target.h); the data path (submission, answers, the blk-mq timeout,
 * zero-copy completion, each target's tick) takes only that one, never
 * aoe_tgt_lock, so targets do not share a lock there. Control paths that
 * need the table too (Query Config, IDENTIFY, netdev events, flush) take
 * aoe_tgt_lock first, then one target's lock at a time. Frames whose
 * request ended while an skb holds their pages (zombies) are on one list
 * under aoe_zombie_lock, taken alone or inside a target's lock (io.c). The data path
 * transmits its frames after dropping t->lock, with bottom halves still off
 * and inside the RCU section that looked up their devices (send.c); an
 * answered read frame's data is copied in after it is dropped, the frame
 * claimed first (io.c aoe_io_claim()); finished requests are ended after
 * it is dropped. Each file says what it adds to this.
 */
#ifndef AOE_IO_H
#define AOE_IO_H

#include <linux/blk-mq.h>
#include <linux/completion.h>
#include <linux/hash.h>
#include <linux/if_ether.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/skbuff.h>
#include <linux/timer.h>

#include "ata.h"
#include "target.h"

/* a path refused by a reservation (AoE error 6) is avoided this long */
#define AOE_RESV_AVOID_MS	2000

struct aoe_ident {
	struct completion done;
	int error;
	u8 data[AOE_SECTOR_SIZE];
};

/* One ATA frame in flight. */
struct aoe_io {
	struct aoe_target *t;		/* its target (freed after its frames) */
	struct list_head node;		/* target->frames, ->draining, aoe_zombies */
	struct list_head rnode;		/* on target->resend while waiting */
	struct llist_node released;	/* on aoe_zc_released */
	struct ubuf_info zc;		/* refcnt: engine's 1 + skbs holding pages */
	unsigned long drain_since;	/* jiffies: answered, copies still out */
	int zc_ifindex;			/* device of the last zero-copy skb */
	const struct net *zc_net;	/* its namespace: compared, no reference */
	bool modref;			/* holds a module reference */
	bool zc_fwd;			/* a skb went out SKBFL_DONT_ORPHAN */
	bool zombie;			/* request ended, skbs still hold pages */
	u16 z_shelf;			/* a zombie's target, whose writes it */
	u8 z_slot;			/* fences (it may outlive the target) */
	blk_status_t status;
	u32 tag;
	u32 prev_tag;			/* tag of the previous transmission */
	struct aoe_tag tag_ent;		/* both in target->tags (tag.h) */
	struct aoe_tag prev_ent;
	int prev_ifindex;		/* and where it went */
	const struct net *prev_net;	/* compared only, never dereferenced */
	u8 prev_mac[ETH_ALEN];
	u32 seq;			/* path send sequence, for loss detection */
	ktime_t prev_sent;		/* when the previous transmission went */
	struct aoe_path *path;		/* where it was last sent */
	struct request *rq;		/* NULL for IDENTIFY */
	struct aoe_ident *ident;
	u32 off;			/* byte offset in the request */
	u32 len;			/* data bytes */
	struct aoe_rq_pos pos;		/* where byte @off is (aoe_io_range()) */
	u64 lba;
	bool write;
	bool flush;			/* FLUSH CACHE (EXT): no data */
	bool fua;			/* WRITE DMA FUA EXT */
	u8 tries;
	bool refused;			/* the current transmission was refused */
	u32 rto_us;			/* largest RTO it was sent with */
	bool rto_fired;			/* waiting because its timer expired */
	bool fenced;			/* aoe_io_fence() done */
	bool prev_rto;			/* the previous transmission timed out */
	u32 epoch;			/* path window epoch when sent */
	ktime_t sent;
	unsigned long first_sent;	/* jiffies, first transmission */
};

typedef void (*aoe_seg_fn)(struct bio_vec *bv, u32 from, void *arg);

/* the frame's command, as the tracepoints show it */
static inline char aoe_io_cmd(const struct aoe_io *io)
{
	if (io->flush)
		return 'F';
	if (io->ident)
		return 'I';
	return io->write ? 'W' : 'R';
}

static inline bool aoe_io_waiting(const struct aoe_io *io)
{
	return !list_empty(&io->rnode);
}

/* Frames in flight on a path count in its window and in its port's. */
static inline void aoe_path_out_inc(struct aoe_path *p)
{
	p->outstanding++;
	p->port->outstanding++;
}

static inline void aoe_path_out_dec(struct aoe_path *p)
{
	p->outstanding--;
	p->port->outstanding--;
}

static inline bool aoe_path_usable(const struct aoe_path *p)
{
	return p->state == AOE_PATH_STATE_UP && p->payload;
}

/* io.c */
extern struct kmem_cache *aoe_io_cache;
extern struct list_head aoe_zombies;
extern spinlock_t aoe_zombie_lock;
/*
 * Write zombies per bucket of shelf.slot (fence.c's fast path: a write
 * looks at aoe_zombies only when its address's bucket has one); written
 * under aoe_zombie_lock, read without it (by a target whose own zombies
 * are made under its lock, held there).
 */
#define AOE_ZOMBIE_BUCKET_BITS	6
extern unsigned int aoe_zombie_writes[1 << AOE_ZOMBIE_BUCKET_BITS];

static inline unsigned int aoe_zombie_bucket(u16 shelf, u8 slot)
{
	return hash_32((u32)shelf << 8 | slot, AOE_ZOMBIE_BUCKET_BITS);
}
void aoe_rq_pos_start(struct aoe_rq_pos *p, struct request *rq);
void aoe_rq_pos_advance(struct aoe_rq_pos *p, u32 bytes);
u32 aoe_io_range(struct aoe_io *io, aoe_seg_fn fn, void *arg);
struct aoe_io *aoe_io_alloc(struct aoe_target *t, gfp_t gfp);
void aoe_io_free(struct aoe_io *io);
void aoe_count_lost(struct aoe_target *t, struct aoe_io *io);
void aoe_io_fence(struct aoe_target *t, struct aoe_io *io, bool answered,
		  u32 tag, struct aoe_path *p, ktime_t now);
void aoe_io_finish(struct aoe_target *t, struct aoe_io *io,
		   blk_status_t st, struct list_head *done);
void aoe_io_claim(struct aoe_target *t, struct aoe_io *io);
void aoe_io_claim_end(struct aoe_target *t, struct aoe_io *io,
		      struct list_head *done);
void aoe_drain(struct aoe_target *t, bool force, struct list_head *done);
bool aoe_warn_held(void);
void aoe_fail_pending(struct aoe_target *t, struct list_head *done);

/* flush.c */
u32 aoe_rq_units(struct request *rq);
void aoe_io_cache_setup(struct aoe_target *t, struct aoe_io *io);
u8 aoe_io_cache_cmd(const struct aoe_target *t, const struct aoe_io *io);
void aoe_io_cache_sent(struct aoe_target *t, struct aoe_io *io,
		       struct aoe_path *p);
void aoe_io_flush_done(struct aoe_target *t, struct aoe_io *io,
		       blk_status_t st);
void aoe_io_flush_error(struct aoe_target *t, const struct aoe_frame *f,
			bool aoe_error);

/* send.c */
bool aoe_path_unrefused(const struct aoe_target *t);
struct aoe_path *aoe_pick_path(struct aoe_target *t, bool room);
int aoe_io_send(struct aoe_target *t, struct aoe_io *io, struct aoe_path *p,
		struct sk_buff_head *q);
void aoe_io_requeue(struct aoe_target *t, struct aoe_io *io);
void aoe_kick(struct aoe_target *t, struct sk_buff_head *q);

/* timers.c */
extern struct timer_list aoe_zombie_timer;
extern bool aoe_ata_stopping;
void aoe_arm_timer(struct aoe_target *t);
void aoe_arm_timer_at(struct aoe_target *t, u64 when);
void aoe_arm_rto(struct aoe_target *t, struct aoe_io *io);
void aoe_arm_zombie_watch(void);
u64 aoe_fast_retransmit(struct aoe_target *t, struct aoe_path *p,
			ktime_t now);
void aoe_zombie_tick(struct timer_list *timer);

#endif
