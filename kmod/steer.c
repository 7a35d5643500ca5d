// SPDX-License-Identifier: GPL-2.0
/*
 * Answers spread over CPUs (aoe_rx_spread). AoE is not IP: a NIC's RSS
 * cannot hash it, so every answer arrives on the CPU of one receive queue
 * (on a veth, on the CPU that sent the request), and the engine's answer
 * work ran there for every target: the copy of read data into the
 * request's pages, the end of the requests, the frames sent in their place
 * (aoe_kick()). On the test VM one vCPU did all of it while the other
 * idled; 4 targets read no more than one. With aoe_rx_spread=Y (default N:
 * see "Reordering" below) each target is given a CPU when it is made
 * (round robin over the online housekeeping CPUs, never an isolated one);
 * an ATA
 * answer that arrives elsewhere is queued to that CPU and processed there,
 * in its network softirq, as RPS hands packets between CPUs: the answer
 * joins a per-CPU queue, an IPI makes that CPU schedule the queue's NAPI
 * context, whose poll processes up to a budget of answers and yields to the
 * rest of the softirq. So a steered answer runs with the priority any
 * received packet has (a real-time task on that CPU delays it no more than
 * it delays the CPU's own network receive).
 *
 * Order: a target's answers are processed in the order they were queued,
 * and one that arrives on its own CPU while answers wait in that CPU's
 * queue joins the queue behind them (aoe_steer_cpu.pending counts queued
 * answers and the one being processed): an answer never overtakes an
 * earlier one of the same CPU's queue, or loss detection (RACK: later
 * answers seen first) would take the waiting ones for lost. (Transient
 * exceptions: aoe_rx_spread turned off, or a target's CPU going offline,
 * while answers wait; those already queued are then processed after newer
 * ones.)
 *
 * Reordering: with answers processed on a target's CPU, its frames leave
 * from two CPUs (the submitter's, the target's); where answers come back on
 * the CPU that sent the frame (a veth: each CPU's backlog), those of one
 * CPU can wait behind that CPU's other work while the other's are taken:
 * on the 2-vCPU test VM, 64 KiB writes from one CPU to two targets saw
 * hundreds of frames presumed lost on a clean link, and writes fenced for a
 * second. One receive queue (a NIC: AoE is not hashed) keeps the wire's
 * order, but that is not measured here; so it is off by default.
 *
 * Frames sent from another CPU (aoe_tx_spread). With answers on a
 * target's CPU, one busy target still ran on one CPU: where the target
 * works on the sending CPU (a veth, a target on this host) and its answer
 * comes back there, the frames sent from the answers' CPU bring the next
 * answers back to it. With aoe_tx_spread=Y each target also has a
 * transmit CPU (t->tx_cpu, the next online housekeeping CPU after
 * t->rx_cpu); what the engine builds for it elsewhere is queued to that
 * CPU's txq, under the target's lock where it was built (so a target's
 * frames are queued in the order they were stamped and numbered: loss
 * detection takes that for the order they left in), and sent by the
 * CPU's NAPI context before it processes answers. On that CPU with its
 * txq empty, the caller sends them itself (nothing queued can be
 * overtaken: the poll cannot run before the caller enables bottom halves
 * again). A frame queued more than AOE_STEER_TX_MAX_MS ago is dropped
 * unsent (loss detection sends it again), and the stale-write fence adds
 * that much to its time, which counts from the build (fence.c).
 *
 * Read data copied on another CPU (aoe_copy_spread). The copy of an
 * answer's read data into the request's pages, and the end of the requests
 * it finishes, is most of an answer's work on reads; without the spreads
 * it ran on the answer's CPU, which on a veth (and at a NIC: one receive
 * queue) is where the whole exchange of a busy target runs. With
 * aoe_copy_spread=Y, receive.c first does everything else about the answer
 * where it arrives, in arrival order (its tag, its RTT, loss detection, the
 * frames sent in its place), then queues the skb with its claimed frame to
 * another CPU's copy queue (t->rx_cpu, or the next online housekeeping CPU
 * when that is this one), whose NAPI context copies and ends the requests.
 * Nothing the order of answers decides depends on when that runs: a
 * claimed frame is off every list and window, and its request is held
 * (r->copying: the blk-mq timeout leaves it to the copy), so the request's
 * disk, and with it the target, outlive the copy (io.c aoe_io_claim()). A
 * full copy queue (AOE_STEER_MAX_QUEUED) means the copy is made where the
 * answer is; nothing is dropped. A claimed frame has no deadline of its
 * own, so a CPU that does not poll must not keep its copies: the next
 * copy queued to it finds the head AOE_STEER_TX_MAX_MS old and copies what
 * waits there itself (and its own after), and the blk-mq timeout of a
 * request whose copy waits (no progress for aoe_deadsecs + 5 s) copies
 * every queue out first (aoe_steer_copy_rescue()). A poll shares its
 * budget: frames to send get half when answers or copies wait, copies half
 * when answers wait.
 *
 * Stalls: a CPU that does not run its softirq (a vCPU the host
 * descheduled, a real-time task) holds what was queued to it. Frames
 * queued AOE_STEER_STALL_MS ago and still waiting are sent by the next
 * sender to that CPU, its own frames after them (in order); frames or
 * answers waiting that long, and not yet AOE_STEER_TX_MAX_MS, make the
 * target's tick skip its loss decisions, as a late tick does
 * (aoe_steer_stalled(), timers.c). What waits in the kernel's own backlog
 * of a stalled CPU (a frame a veth delivered there, its answer) is not
 * seen: a tick on another CPU can take it for lost, and answers to frames
 * sent meanwhile from elsewhere overtake it (scenario 73 under TCG with
 * another VM beside it: up to 2 timeouts, hundreds presumed lost).
 *
 * Locking: each CPU's queue is an sk_buff_head whose lock (BH-safe: taken
 * from softirqs and process context with bottom halves off) also guards
 * pending, scheduled, sending and the CPU's txq. scheduled: an IPI or a
 * poll is on its way; set by the producer (answer or frame) that found it
 * clear, cleared by the poll when it finds both queues empty, before it
 * completes (an answer queued in between sends a new IPI, whose
 * napi_schedule() marks the running context missed, and
 * napi_complete_done() polls again). sending: frames taken off txq and
 * not yet sent (a poll's, or a sender's passing a stalled CPU); a sender
 * on the transmit CPU sends inline only when txq is empty and sending is
 * 0. owed: read and written only by its own CPU, bottom halves off. A
 * queued skb holds a reference on its device (dev_hold()), dropped after
 * it is processed: an interface unregistered meanwhile waits for the poll.
 *
 * Lifetime: nothing is queued after aoe_netif_uninit() removed the receive
 * hook and synchronize_net() let running hooks finish. Frames are queued
 * only while aoe_steer_live, read with bottom halves off: uninit clears it
 * and waits a grace period first; after that a target's tick sends its
 * own frames. This step's uninit
 * comes after that: it waits (5 s at most) until no IPI sent is still to
 * run its handler (aoe_steer_ipis, dropped as the handler's last act, whose
 * return then ends before the synchronize_net() that follows: it runs with
 * interrupts off), disables every NAPI context (waits for a poll in
 * progress), deletes them, drops what is left queued (at unload no disk is
 * open, so no request waits for an answer); the targets an answer names
 * are torn down by a later step. A CPU that goes offline
 * hands its scheduled NAPI contexts to a live CPU (the core's
 * dev_cpu_dead()), which polls them; an answer for a target whose CPU is
 * offline is processed where it arrives. Copies still queued at unload
 * (none should be: the request waiting for one holds its disk's queue, so
 * the target's teardown waits for it) are made there, not dropped: their
 * requests end.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched/isolation.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "ata.h"
#include "compat.h"
#include "netif.h"
#include "params.h"
#include "steer.h"

/*
 * Beyond this many answers waiting on a CPU, the next ones are dropped
 * (counted no_memory; the engine sends their frames again): the core's own
 * backlog holds 1000 a CPU. Forged answers are queued too (checked where
 * they are processed), so a flood fills it as it fills the backlog.
 */
#define AOE_STEER_MAX_QUEUED	1024

struct aoe_steer_cpu {
	struct sk_buff_head q;		/* its lock guards the two below */
	unsigned int pending;		/* queued, or being processed */
	bool scheduled;			/* an IPI or poll is on its way */
	struct napi_struct napi;
	call_single_data_t csd;
	struct sk_buff_head txq;	/* frames to send from this CPU */
	struct sk_buff_head cq;		/* read data to copy on this CPU */
	unsigned int sending;		/* senders of frames taken off txq */
	int owed;			/* (this CPU's) a CPU to kick, plus 1 */
};

static struct aoe_steer_cpu __percpu *aoe_steer_cpus;
/* the NAPI contexts' device: never registered, never sends */
static struct net_device *aoe_steer_dev;
static atomic_t aoe_steer_next = ATOMIC_INIT(0);
/* IPIs sent whose handler has not finished */
static atomic_t aoe_steer_ipis = ATOMIC_INIT(0);
/* from init to uninit: frames may be queued to be sent elsewhere */
static bool aoe_steer_live;

#ifdef AOE_HAVE_NETDEV_DUMMY
#define aoe_alloc_netdev_dummy() alloc_netdev_dummy(0)
#define aoe_free_netdev_dummy(dev) free_netdev(dev)
#else
static struct net_device *aoe_alloc_netdev_dummy(void)
{
	struct net_device *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (dev)
		init_dummy_netdev(dev);
	return dev;
}

#define aoe_free_netdev_dummy(dev) kfree(dev)
#endif

int aoe_steer_pick_cpu(void)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_DOMAIN);
	unsigned int n = 0, i, cpu;

	for_each_cpu_and(cpu, cpu_online_mask, hk)
		n++;
	i = (unsigned int)atomic_inc_return(&aoe_steer_next) % max(n, 1U);
	/* a CPU may go offline meanwhile: then this one */
	for_each_cpu_and(cpu, cpu_online_mask, hk)
		if (!i--)
			return cpu;
	return raw_smp_processor_id();
}

/* IPI on the queue's CPU: its NAPI context polls in that CPU's softirq. */
static void aoe_steer_ipi(void *arg)
{
	struct aoe_steer_cpu *sc = arg;

	napi_schedule(&sc->napi);
	atomic_dec(&aoe_steer_ipis);
}

/*
 * When a frame to send or an answer was queued, in jiffies: skb->cb is
 * ours until a frame is sent (or an answer processed: nothing reads it).
 */
struct aoe_steer_cb {
	unsigned long queued;
};

static unsigned long aoe_steer_cb_queued(const struct sk_buff *skb)
{
	return ((const struct aoe_steer_cb *)skb->cb)->queued;
}

/* How long ago the head of @q was queued, in jiffies (0: empty). */
static unsigned long aoe_steer_head_age(struct sk_buff_head *q)
{
	struct sk_buff *head = skb_peek(q);

	return head ? jiffies - aoe_steer_cb_queued(head) : 0;
}

/*
 * Is the head of @q older than AOE_STEER_STALL_MS (and, with @young, not
 * older than AOE_STEER_TX_MAX_MS)? Under q->lock.
 */
static bool aoe_steer_old(struct sk_buff_head *q, bool young)
{
	unsigned long age = aoe_steer_head_age(q);

	return age > msecs_to_jiffies(AOE_STEER_STALL_MS) &&
	       (!young || age <= msecs_to_jiffies(AOE_STEER_TX_MAX_MS));
}

static void aoe_steer_kick(struct aoe_steer_cpu *sc, int cpu)
{
	if (cpu == smp_processor_id()) {
		napi_schedule(&sc->napi);
		return;
	}
	atomic_inc(&aoe_steer_ipis);
	if (smp_call_function_single_async(cpu, &sc->csd)) {
		atomic_dec(&aoe_steer_ipis);
		napi_schedule(&sc->napi);	/* went offline: poll it here */
	}
}

/*
 * Queue @skb at the tail of @list, one of @sc's queues, whose lock the
 * caller holds: dropped here, then @sc's CPU @cpu is kicked unless a poll
 * is on its way already (sc->scheduled).
 */
static void aoe_steer_queue_unlock(struct aoe_steer_cpu *sc, int cpu,
				   struct sk_buff_head *list,
				   struct sk_buff *skb)
{
	bool kick;

	__skb_queue_tail(list, skb);
	kick = !sc->scheduled;
	sc->scheduled = true;
	spin_unlock(&sc->q.lock);
	if (kick)
		aoe_steer_kick(sc, cpu);
}

bool aoe_steer(const struct aoe_target *t, struct sk_buff *skb,
	       bool *dropped)
{
	int cpu = t->rx_cpu, here = smp_processor_id();
	struct aoe_steer_cpu *sc;

	*dropped = false;
	if (!READ_ONCE(aoe_rx_spread) || !cpu_online(cpu))
		return false;
	sc = per_cpu_ptr(aoe_steer_cpus, cpu);
	/* on its CPU with nothing waiting there: processed now */
	if (cpu == here && !READ_ONCE(sc->pending))
		return false;
	spin_lock(&sc->q.lock);
	if (cpu == here && !sc->pending) {
		spin_unlock(&sc->q.lock);
		return false;
	}
	if (skb_queue_len(&sc->q) >= AOE_STEER_MAX_QUEUED) {
		spin_unlock(&sc->q.lock);
		*dropped = true;	/* the engine sends it again */
		return false;
	}
	((struct aoe_steer_cb *)skb->cb)->queued = jiffies;
	dev_hold(skb->dev);
	WRITE_ONCE(sc->pending, sc->pending + 1);
	/*
	 * On its own CPU an answer is queued only behind pending ones, and
	 * pending answers mean a poll is scheduled (unless frames to send
	 * were queued first: then the poll they scheduled takes it too).
	 */
	aoe_steer_queue_unlock(sc, cpu, &sc->q, skb);
	return true;
}

/*
 * What a queued copy needs (skb->cb is ours: the answer was processed);
 * queued first, as in struct aoe_steer_cb (aoe_steer_cb_queued()).
 */
struct aoe_copy_cb {
	unsigned long queued;
	struct aoe_target *t;
	struct aoe_io *io;
	int base;
};

/* Copy in and free the skbs of @cq; the requests they end go on @done. */
static void aoe_steer_copy_list(struct sk_buff_head *cq,
				struct list_head *done)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(cq))) {
		struct aoe_copy_cb *cb = (struct aoe_copy_cb *)skb->cb;

		aoe_ata_copy_in(cb->t, cb->io, skb, cb->base, done);
		consume_skb(skb);
	}
}

/*
 * Is the head of copy queue @cq older than AOE_STEER_TX_MAX_MS? A copy
 * that waits only delays its request (loss detection is done with the
 * answer), so it is left longer to its CPU than frames and answers are
 * (AOE_STEER_STALL_MS): a vCPU the host deschedules for tens of
 * milliseconds is not a CPU that does not poll. Under @cq's lock.
 */
static bool aoe_steer_copy_stalled(struct sk_buff_head *cq)
{
	return aoe_steer_head_age(cq) > msecs_to_jiffies(AOE_STEER_TX_MAX_MS);
}

/* Copy what waits on @sc's queue here (bottom halves off). */
static void aoe_steer_copy_all(struct aoe_steer_cpu *sc)
{
	struct sk_buff_head cq;
	LIST_HEAD(done);

	__skb_queue_head_init(&cq);
	spin_lock(&sc->q.lock);
	skb_queue_splice_init(&sc->cq, &cq);
	spin_unlock(&sc->q.lock);
	aoe_steer_copy_list(&cq, &done);
	aoe_ata_end_requests(&done);
}

bool aoe_steer_copy(struct aoe_target *t, struct aoe_io *io,
		    struct sk_buff *skb, int base)
{
	int here = smp_processor_id(), cpu = t->rx_cpu;
	struct aoe_steer_cpu *sc;
	struct aoe_copy_cb *cb;

	if (!READ_ONCE(aoe_copy_spread) || !READ_ONCE(aoe_steer_live))
		return false;
	if (cpu == here || !cpu_online(cpu))
		cpu = aoe_steer_pick_tx_cpu(here);
	if (cpu == here)
		return false;	/* no other CPU */
	sc = per_cpu_ptr(aoe_steer_cpus, cpu);
	spin_lock(&sc->q.lock);
	if (aoe_steer_copy_stalled(&sc->cq)) {
		/* that CPU does not poll: what waits there is copied here */
		spin_unlock(&sc->q.lock);
		aoe_steer_copy_all(sc);
		return false;
	}
	if (skb_queue_len(&sc->cq) >= AOE_STEER_MAX_QUEUED) {
		spin_unlock(&sc->q.lock);
		return false;	/* copied here */
	}
	BUILD_BUG_ON(sizeof(*cb) > sizeof(skb->cb));
	BUILD_BUG_ON(offsetof(struct aoe_copy_cb, queued) !=
		     offsetof(struct aoe_steer_cb, queued));
	cb = (struct aoe_copy_cb *)skb->cb;
	cb->queued = jiffies;
	cb->t = t;
	cb->io = io;
	cb->base = base;
	aoe_steer_queue_unlock(sc, cpu, &sc->cq, skb);
	return true;
}

void aoe_steer_copy_rescue(void)
{
	int cpu;

	/* bottom halves off: uninit's grace period waits for this */
	local_bh_disable();
	if (READ_ONCE(aoe_steer_live))
		for_each_possible_cpu(cpu)
			aoe_steer_copy_all(per_cpu_ptr(aoe_steer_cpus, cpu));
	local_bh_enable();
}

/*
 * The poll's copies: up to @budget of @sc->cq (half of it when answers
 * wait too); returns how many.
 */
static int aoe_steer_copies(struct aoe_steer_cpu *sc, int budget)
{
	struct sk_buff_head cq;
	struct sk_buff *skb;
	LIST_HEAD(done);
	int n = 0;

	__skb_queue_head_init(&cq);
	spin_lock(&sc->q.lock);
	/* answers wait too: half of it each (none starves the other) */
	if (!skb_queue_empty(&sc->q))
		budget = max(budget / 2, 1);
	while (n < budget && (skb = __skb_dequeue(&sc->cq))) {
		__skb_queue_tail(&cq, skb);
		n++;
	}
	spin_unlock(&sc->q.lock);
	aoe_steer_copy_list(&cq, &done);
	aoe_ata_end_requests(&done);
	return n;
}

int aoe_steer_pick_tx_cpu(int rx_cpu)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_DOMAIN);
	int cpu;

	/* the next online housekeeping CPU after @rx_cpu (itself if alone) */
	for_each_cpu_wrap(cpu, cpu_online_mask, (rx_cpu + 1) % nr_cpu_ids)
		if (cpu != rx_cpu && cpumask_test_cpu(cpu, hk))
			return cpu;
	return rx_cpu;
}

/*
 * Sent no later than this many jiffies after it was queued: d jiffies
 * apart is less than d + 1 ticks of time, so a frame leaves less than
 * AOE_STEER_TX_MAX_MS after it was queued (and built).
 */
static unsigned long aoe_steer_tx_max(void)
{
	unsigned long max = msecs_to_jiffies(AOE_STEER_TX_MAX_MS);

	return max > 2 ? max - 2 : 0;
}

/*
 * The kick for frames queued under a target's lock is owed by this CPU
 * and given by aoe_steer_flush() after the lock is dropped (an IPI is a VM
 * exit: not inside the target's busiest section). A second CPU owed at
 * once (frames of two targets in one section) is kicked at once.
 */
static void aoe_steer_owe(int cpu)
{
	struct aoe_steer_cpu *here = this_cpu_ptr(aoe_steer_cpus);
	int owed = here->owed;

	here->owed = cpu + 1;
	if (owed && owed != cpu + 1)
		aoe_steer_kick(per_cpu_ptr(aoe_steer_cpus, owed - 1), owed - 1);
}

void aoe_steer_flush(void)
{
	struct aoe_steer_cpu *here;
	int owed;

	if (!READ_ONCE(aoe_steer_live))
		return;
	here = this_cpu_ptr(aoe_steer_cpus);
	owed = here->owed;
	if (!owed)
		return;
	here->owed = 0;
	aoe_steer_kick(per_cpu_ptr(aoe_steer_cpus, owed - 1), owed - 1);
}

/* Send @tx, frames taken off @sc->txq (sending counted: dropped here). */
static void aoe_steer_send_list(struct aoe_steer_cpu *sc,
				struct sk_buff_head *tx)
{
	struct sk_buff *skb;

	rcu_read_lock();
	while ((skb = __skb_dequeue(tx))) {
		struct net_device *dev = skb->dev;
		unsigned long queued = aoe_steer_cb_queued(skb);

		memset(skb->cb, 0, sizeof(skb->cb));
		if (time_after_eq(jiffies, queued + aoe_steer_tx_max())) {
			net_warn_ratelimited("aoe: a frame waited about %u ms to be sent: dropped (sent again when found lost)\n",
					     AOE_STEER_TX_MAX_MS);
			kfree_skb(skb);
		} else if (!netif_running(dev) || !aoe_netif_usable(dev)) {
			kfree_skb(skb);	/* gone from AoE meanwhile */
		} else {
			aoe_netif_xmit(skb);
		}
		dev_put(dev);
	}
	rcu_read_unlock();
	spin_lock(&sc->q.lock);
	WRITE_ONCE(sc->sending, sc->sending - 1);
	spin_unlock(&sc->q.lock);
}

void aoe_steer_tx(struct aoe_target *t, struct sk_buff_head *q)
{
	int cpu = t->tx_cpu;
	struct aoe_steer_cpu *sc;
	struct sk_buff_head old;
	struct sk_buff *skb;
	bool kick;

	if (skb_queue_empty(q) || !READ_ONCE(aoe_tx_spread) ||
	    !READ_ONCE(aoe_steer_live))
		return;
	sc = per_cpu_ptr(aoe_steer_cpus, cpu);
	/*
	 * On its CPU (or it is offline) with nothing queued or being sent
	 * there: sent here, by the caller, before anything queued after
	 * this (the CPU's poll comes later).
	 */
	if ((cpu == smp_processor_id() || !cpu_online(cpu)) &&
	    skb_queue_empty_lockless(&sc->txq) && !READ_ONCE(sc->sending))
		return;
	spin_lock(&sc->q.lock);
	if (aoe_steer_old(&sc->txq, false) && !sc->sending) {
		/*
		 * That CPU does not send: what waits there goes from here,
		 * then these (the caller's), in order.
		 */
		__skb_queue_head_init(&old);
		skb_queue_splice_init(&sc->txq, &old);
		WRITE_ONCE(sc->sending, sc->sending + 1);
		spin_unlock(&sc->q.lock);
		aoe_steer_send_list(sc, &old);
		return;
	}
	skb_queue_walk(q, skb) {
		((struct aoe_steer_cb *)skb->cb)->queued = jiffies;
		dev_hold(skb->dev);
	}
	skb_queue_splice_tail_init(q, &sc->txq);
	kick = !sc->scheduled;
	sc->scheduled = true;
	spin_unlock(&sc->q.lock);
	/* its ghosts allow for the wait (fence.c) */
	t->tx_queued = true;
	if (kick)
		aoe_steer_owe(cpu);
}

bool aoe_steer_stalled(const struct aoe_target *t)
{
	struct aoe_steer_cpu *sc;
	bool old = false;

	if (!READ_ONCE(aoe_steer_live))
		return false;
	if (t->tx_queued) {
		sc = per_cpu_ptr(aoe_steer_cpus, t->tx_cpu);
		spin_lock(&sc->q.lock);
		old = aoe_steer_old(&sc->txq, true);
		spin_unlock(&sc->q.lock);
	}
	if (!old && READ_ONCE(aoe_rx_spread)) {
		sc = per_cpu_ptr(aoe_steer_cpus, t->rx_cpu);
		spin_lock(&sc->q.lock);
		old = aoe_steer_old(&sc->q, true);
		spin_unlock(&sc->q.lock);
	}
	return old;
}

/*
 * The poll's sending: up to @budget frames of @sc->txq (half of it when
 * answers or copies wait too), in the order they were queued; returns how
 * many.
 */
static int aoe_steer_send(struct aoe_steer_cpu *sc, int budget)
{
	struct sk_buff_head tx;
	struct sk_buff *skb;
	int n = 0;

	__skb_queue_head_init(&tx);
	spin_lock(&sc->q.lock);
	if (!skb_queue_empty(&sc->q) || !skb_queue_empty(&sc->cq))
		budget = max(budget / 2, 1);
	while (n < budget && (skb = __skb_dequeue(&sc->txq))) {
		__skb_queue_tail(&tx, skb);
		n++;
	}
	if (n)
		WRITE_ONCE(sc->sending, sc->sending + 1);
	spin_unlock(&sc->q.lock);
	if (n)
		aoe_steer_send_list(sc, &tx);
	return n;
}

static int aoe_steer_poll(struct napi_struct *napi, int budget)
{
	struct aoe_steer_cpu *sc = container_of(napi, struct aoe_steer_cpu,
						napi);
	struct sk_buff *skb;
	int n;

	/* frames first: they may be what answers wait for */
	n = aoe_steer_send(sc, budget);
	/* then copies: they end requests, whose next I/O is then submitted */
	if (n < budget)
		n += aoe_steer_copies(sc, budget - n);
	spin_lock(&sc->q.lock);
	for (;;) {
		struct net_device *dev;

		skb = n < budget ? __skb_dequeue(&sc->q) : NULL;
		if (!skb)
			break;
		spin_unlock(&sc->q.lock);
		dev = skb->dev;
		aoe_netif_rx_steered(skb);
		dev_put(dev);
		n++;
		spin_lock(&sc->q.lock);
		/* processed: no longer ahead of an answer on this CPU */
		WRITE_ONCE(sc->pending, sc->pending - 1);
	}
	if (n < budget && skb_queue_empty(&sc->txq) &&
	    skb_queue_empty(&sc->cq)) {
		sc->scheduled = false;
		spin_unlock(&sc->q.lock);
		napi_complete_done(napi, n);
		return n;
	}
	spin_unlock(&sc->q.lock);
	return budget;		/* more waiting: polled again */
}

int aoe_steer_init(void)
{
	int cpu;

	aoe_steer_cpus = alloc_percpu(struct aoe_steer_cpu);
	if (!aoe_steer_cpus)
		return -ENOMEM;
	aoe_steer_dev = aoe_alloc_netdev_dummy();
	if (!aoe_steer_dev) {
		free_percpu(aoe_steer_cpus);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct aoe_steer_cpu *sc = per_cpu_ptr(aoe_steer_cpus, cpu);

		skb_queue_head_init(&sc->q);
		__skb_queue_head_init(&sc->txq);
		__skb_queue_head_init(&sc->cq);
		sc->sending = 0;
		sc->owed = 0;
		sc->pending = 0;
		sc->scheduled = false;
		INIT_CSD(&sc->csd, aoe_steer_ipi, sc);
		netif_napi_add(aoe_steer_dev, &sc->napi, aoe_steer_poll);
		napi_enable(&sc->napi);
	}
	WRITE_ONCE(aoe_steer_live, true);
	return 0;
}

void aoe_steer_uninit(void)
{
	unsigned long end = jiffies + 5 * HZ;
	struct sk_buff *skb;
	int cpu;

	/*
	 * Senders check aoe_steer_live with bottom halves off (an RCU read
	 * section): after the grace period none queues frames or sends IPIs
	 * for them; nothing queues answers (the receive hook is gone).
	 */
	WRITE_ONCE(aoe_steer_live, false);
	synchronize_rcu();
	while (atomic_read(&aoe_steer_ipis) && time_before(jiffies, end))
		msleep(20);
	WARN_ON_ONCE(atomic_read(&aoe_steer_ipis));
	for_each_possible_cpu(cpu) {
		struct aoe_steer_cpu *sc = per_cpu_ptr(aoe_steer_cpus, cpu);

		napi_disable(&sc->napi);
		__netif_napi_del(&sc->napi);
	}
	/* the contexts' deletion, and handlers' last instructions */
	synchronize_net();
	for_each_possible_cpu(cpu) {
		struct aoe_steer_cpu *sc = per_cpu_ptr(aoe_steer_cpus, cpu);

		/* a copy's request waits for it: made here */
		local_bh_disable();
		aoe_steer_copy_all(sc);
		local_bh_enable();
		while ((skb = skb_dequeue(&sc->q))) {
			dev_put(skb->dev);
			kfree_skb(skb);
		}
		while ((skb = __skb_dequeue(&sc->txq))) {
			dev_put(skb->dev);
			kfree_skb(skb);
		}
	}
	aoe_free_netdev_dummy(aoe_steer_dev);
	free_percpu(aoe_steer_cpus);
}
