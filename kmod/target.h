/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AOE_TARGET_H
#define AOE_TARGET_H

#include <linux/if_ether.h>
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/types.h>

#include <linux/workqueue.h>

#include "aoe_codec.h"
#include "aoe_fence.h"
#include "aoe_ident.h"
#include "aoe_flow.h"
#include "aoe_policy.h"
#include "tag.h"
#include "uapi/aoe_netlink.h"

#define AOE_MAX_TARGETS	1024	/* then a new target evicts an unused one */
#define AOE_IDENTIFY_MAX	16	/* targets identifying at once */
#define AOE_MAX_PATHS	16	/* per target: local interfaces x target MACs */
#define AOE_CAND_MAX	4	/* new paths being checked at once, per target */

struct aoe_counters {
	u64 frames_sent;
	u64 frames_received;
	u64 retransmits;
	u64 timeouts;
	u64 lost;
	u64 bytes_read;
	u64 bytes_written;
	u64 read_reqs;
	u64 write_reqs;
	u64 ata_errors;
	u64 backoffs;		/* timeout events: RTO backoffs */
	u64 flushes_sent;	/* FLUSH CACHE (EXT), first transmissions */
	u64 flushes_answered;
	u64 flushes_failed;
	u64 fua_writes;		/* WRITE DMA FUA EXT, first transmissions */
	/* stale-write fence (fence.c), targets only */
	u64 fence_ghosts;	/* write copies fenced */
	u64 fence_held;		/* writes held by the fence */
	u64 fence_held_us;	/* total time they were held */
	u64 reserve_conflicts;	/* AoE error 6 answers to I/O (receive.c) */
	/* identity (target.c), targets only */
	u64 address_conflicts;	/* paths refused: another device's IDENTIFY */
	u64 drops[__AOE_DROP_MAX];
};

/*
 * A target port: one target MAC, reached over one or more local interfaces.
 * Its buffer count bounds the frames outstanding to it over all of its
 * paths together.
 */
struct aoe_port {
	struct list_head node;	/* on target->ports */
	u8 mac[ETH_ALEN];
	u16 bufcnt;		/* from its latest Query Config answer */
	u32 outstanding;	/* frames in flight over all its paths */
	unsigned int npaths;	/* freed with the last */
};

struct aoe_ident;

/*
 * One way to reach a target: local interface x target MAC. It carries I/O
 * only in state UP, which it reaches only when an IDENTIFY sent over exactly
 * this path was answered with the target's identity (target.c); before, and
 * whenever its device may have changed, it is a CANDIDATE.
 */
struct aoe_path {
	struct list_head node;
	struct aoe_port *port;	/* the target MAC's port */
	/*
	 * The local interface: its namespace and ifindex there. No reference
	 * on the namespace: every device gets NETDEV_UNREGISTER before its
	 * namespace goes (moved or destroyed), and that frees the path.
	 */
	possible_net_t net;
	int ifindex;
	char ifname[IFNAMSIZ];
	u8 mac[ETH_ALEN];
	u16 bufcnt;
	u16 fwver;
	/*
	 * sectors per frame; with bufcnt, once the path is verified only
	 * lowered by a Query Config answer (anyone can send one), raised only
	 * within AOE_RAISE_MS of a revalidate (config_rx())
	 */
	u8 maxsect;
	u32 mtu;
	u32 payload;
	u32 state;		/* enum aoe_path_state */
	unsigned long last_rx;	/* jiffies */
	struct aoe_counters cnt;
	struct aoe_rtt rtt;
	struct aoe_cwnd win;
	u32 outstanding;
	struct aoe_timeouts tmo;	/* timeout events, in a row */
	u32 tx_seq;		/* frames sent on this path */
	u32 acked_seq;		/* highest tx_seq answered */
	u32 acked_rtt_us;	/* how long that frame took */
	ktime_t last_ack;	/* last answer: the RTO runs from here too */
	u64 fence_dup_until;	/* ns: suspected of duplicating (fence.c) */
	/*
	 * jiffies: the target refused this path's source MAC (AoE error 6,
	 * reserved by another initiator) and new frames avoid it until then
	 * while another path can carry them (send.c); 0: not refused
	 */
	unsigned long resv_until;
	/*
	 * its last answer was a refusal (AoE error 6): no working path when
	 * timers.c decides whether to take another one down
	 */
	bool refusing;
	bool verified;		/* matched the identity at least once */
	bool moving;		/* path_refuse(): a sibling being stopped */
	struct aoe_ident *check;	/* its IDENTIFY check in flight, or NULL */
	/*
	 * answered with another capacity while another verified path was
	 * up: waits for the target's IDENTIFY over an up path (t->id_seq
	 * past resize_seq) to confirm that capacity, else it is refused
	 */
	bool resize_wait;
	u8 resize_tries;	/* waits in a row (AOE_RESIZE_TRIES) */
	u32 resize_seq;
	bool failed;		/* failed a check before the target's identity */
	unsigned long recheck_at;	/* an announcement re-checks it (0: now) */
	bool recheck_pending;	/* announced inside the window: at its end */
};

struct aoe_blkdev;

struct aoe_target {
	struct hlist_node hnode;	/* in aoe_tgt_hash (RCU) */
	u16 shelf;			/* beside hnode: a lookup reads both */
	u8 slot;
	struct list_head node;		/* on aoe_tgt_list (RCU) */
	struct list_head gone_node;	/* unlinked: on a teardown list */
	struct rcu_head rcu;		/* freed with kfree_rcu() */
	u32 state;		/* enum aoe_target_state */
	unsigned int npaths;
	struct list_head paths;
	struct list_head ports;		/* struct aoe_port, one per target MAC */
	int tx_cpu;		/* its frames' CPU (aoe_tx_spread); set once */
	bool tx_queued;		/* frames were queued to it: fence.c */
	int rx_cpu;		/* its answers' CPU (steer.c); set once, at creation */
	unsigned long last_rx;	/* jiffies */
	struct aoe_counters cnt;
	u16 cfglen;
	u8 config[AOE_CONFIG_MAXLEN];

	/* the engine's tick (timers.c), off the lock's cache line */
	struct hrtimer timer;
	u64 tick_due;			/* ns, monotonic: when it is armed for */
	u64 rto_confirm_at;		/* ns: a tick from then confirms RTOs */
	bool tick_deferred;		/* the last tick was a little late */

	/* its lock (see "Per-target lock" below), on its own cache line */
	spinlock_t lock ____cacheline_aligned_in_smp;

	/* I/O engine (io.h) */
	struct list_head frames;	/* outstanding frames */
	struct list_head rq_queue;	/* requests with bytes left to send */
	struct list_head resend;	/* frames waiting for window to resend */
	struct list_head draining;	/* answered, a copy still out (io.c) */
	struct list_head fenced;	/* requests held by the fence (fence.c) */
	struct aoe_fence fence;		/* write copies maybe still out */
	u32 outstanding;
	struct aoe_tags tags;		/* frames' tags (tag.h) */
	struct aoe_path *rr;		/* round-robin position */
	unsigned long stalled_since;	/* jiffies: requests but no path */
	/* jiffies|1: last answer to an I/O frame, 0 none (blk-mq backstop) */
	unsigned long answered;
	/* jiffies|1: a frame failed its deadline, the target answering others */
	unsigned long lost_since;
	unsigned long raise_until;	/* jiffies: a revalidate's answers (config_rx()) */
	unsigned long resv_until;	/* latest path->resv_until (receive.c) */
	bool bufcnt_warned;

	/*
	 * identity, from ATA IDENTIFY DEVICE: written only by target_work()
	 * (target.c), under t->lock; never changes lba48 once the disk
	 * exists
	 */
	struct aoe_identity id;
	bool identified;		/* t->id holds the identity */
	u32 id_seq;			/* t->id published this many times */
	bool ident_mode_warned;		/* logged a refused mode change */
	u8 id_mac[ETH_ALEN];		/* the path the identity came from */
	char id_ifname[IFNAMSIZ];
	struct aoe_conflicts conflicts;	/* paths refused (aoe_ident.h) */
	struct aoe_cand_bucket cand;	/* new candidate checks, rate */
	struct work_struct verify_work;	/* checks candidate paths */

	struct aoe_blkdev *bd;		/* NULL until the disk exists */
	unsigned int openers;		/* opens of the disk (blkdev.c) */
	struct work_struct work;	/* identify + disk, process context */
	bool removed;			/* unlinked, being torn down */
	/* IDENTIFY scheduling (target.c): at most AOE_IDENTIFY_MAX run */
	struct list_head id_node;	/* on a wait list for a slot */
	bool id_running;		/* has a slot: work queued or running */
	bool id_again;			/* asked for while running */
	bool id_tried;			/* identified at least once before */

	/*
	 * Write cache (target.c): the flush mode set over netlink (enum
	 * aoe_flush_mode, DEFAULT: aoe_flush), whether the target aborted a
	 * FLUSH, and what the queue declares (written by cache_work only).
	 */
	u32 flush_mode;
	bool flush_refused;
	bool wc_declared;
	bool fua_declared;
	struct work_struct cache_work;	/* declares the queue's write cache */

	/* failure policy: own deadsecs, fast-fail (policy.c) */
	struct aoe_policy policy;
};

/*
 * The target table. aoe_tgt_lock (BH-safe spinlock) protects the list and
 * hash (written only under it, with the RCU list primitives), the count
 * and what t->lock (below) leaves to it. A target is freed with
 * kfree_rcu() after it was unlinked: one found under rcu_read_lock() is
 * valid memory until the read section ends, and its finder reads its state
 * only under its lock after checking !t->removed (users pinned by its disk
 * or a work item of its own, which the teardown waits for, need not). The
 * generation changes whenever a target or path is added or removed (an
 * atomic: read without the lock by netlink).
 */
extern spinlock_t aoe_tgt_lock;
extern struct list_head aoe_tgt_list;
extern atomic_t aoe_tgt_generation;
extern unsigned int aoe_tgt_count;

/*
 * Per-target lock, t->lock (BH-safe spinlock): everything in a target and
 * its paths and ports, frames, tags, fence and the engine's fields of its
 * requests, except what aoe_tgt_lock keeps: its table membership (node,
 * hnode, gone_node), its IDENTIFY scheduling (id_node, id_running,
 * id_again, id_tried) and openers. t->removed and t->bd are written with
 * both held, so either one makes them stable (t->bd is cleared without
 * either once the target is unlinked: aoe_blkdev_del()). Order: aoe_tgt_lock, then
 * one target's lock; never two targets' locks at once. The data path
 * (submission, answers, the blk-mq timeout, zero-copy completion) takes
 * only t->lock (a target found under RCU, t->removed checked under it);
 * control paths that need the table too take both (aoe_tl_lock()).
 */
static inline void aoe_t_assert(const struct aoe_target *t)
{
	lockdep_assert_held(&t->lock);
}

/* Table and target: process context, no lock held. */
static inline void aoe_tl_lock(struct aoe_target *t)
{
	spin_lock_bh(&aoe_tgt_lock);
	spin_lock(&t->lock);
}

static inline void aoe_tl_unlock(struct aoe_target *t)
{
	spin_unlock(&t->lock);
	spin_unlock_bh(&aoe_tgt_lock);
}

/* A target or path was added or removed (dumps in progress see it). */
static inline void aoe_tgt_changed(void)
{
	atomic_inc(&aoe_tgt_generation);
}

static inline u32 aoe_tgt_gen(void)
{
	return atomic_read(&aoe_tgt_generation);
}

int aoe_target_init(void);
void aoe_target_uninit(void);

/* A seeded hash, O(1): under aoe_tgt_lock, or rcu_read_lock() (see above). */
struct aoe_target *aoe_target_find(u16 shelf, u8 slot);
u32 aoe_target_payload(const struct aoe_target *t);
/* The path of @t from interface @ifindex of @net to target @mac, or NULL. */
struct aoe_path *aoe_path_find(struct aoe_target *t, const struct net *net,
			       int ifindex, const u8 *mac);

void aoe_target_config_rx(struct net_device *dev, const struct aoe_frame *f);
void aoe_target_netdev_event(struct net_device *dev, unsigned long event);
void aoe_target_recheck_due(void);
int aoe_target_flush(bool all, int shelf, int slot);
/* Targets forgotten to make room in a full table, since module load. */
u64 aoe_target_evictions(void);
/* Set state and send the matching event. Caller holds t->lock. */
void aoe_target_set_state(struct aoe_target *t, u32 state);
/* p->state = @state, traced (t->lock held) */
void aoe_path_set_state(struct aoe_target *t, struct aoe_path *p, u32 state);
int aoe_target_revalidate(u16 shelf, u8 slot);
/*
 * Write cache. aoe_target_cache_update(): declare the queue's write cache
 * and FUA again from the identity, the flush mode and aoe_flush (soon, in
 * process context); caller holds t->lock. aoe_target_flush_refused():
 * the target aborted a FLUSH (caller holds t->lock). The others take the
 * locks they need.
 */
void aoe_target_cache_update(struct aoe_target *t);
/*
 * What @t's queue is to declare now (@wc, @fua), recorded as declared (the
 * caller declares it); returns true when that changed. Caller holds
 * t->lock.
 */
bool aoe_target_cache_declare(struct aoe_target *t, bool *wc, bool *fua);
void aoe_target_flush_refused(struct aoe_target *t);
void aoe_target_flush_param_changed(void);
int aoe_target_set_flush_mode(u16 shelf, u8 slot, u32 mode);
/* AOE_CACHE_* bits of @t (uapi). Caller holds t->lock. */
u32 aoe_target_cache_bits(const struct aoe_target *t);
const char *aoe_target_name(const struct aoe_target *t, char *buf, size_t n);

/* The clock of the conflict memory and candidate checks (ns, monotonic). */
u64 aoe_target_now_ns(void);

/* Count a dropped frame globally and, when it names one, on its target/path. */
void aoe_drop(enum aoe_drop_reason reason, struct net_device *dev,
	      const struct aoe_frame *f);
/*
 * The same for a frame of target @t from @src on @dev, by a caller that
 * holds t->lock (the per-target and per-path counts) and then calls
 * aoe_drop(@reason, NULL, NULL) after dropping it (the module's count).
 */
void aoe_drop_locked(enum aoe_drop_reason reason, struct aoe_target *t,
		     struct net_device *dev, const u8 *src);
u64 aoe_drops_read(enum aoe_drop_reason reason);

#endif
