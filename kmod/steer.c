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
 * Locking: each CPU's queue is an sk_buff_head whose lock (BH-safe: taken
 * from softirqs and process context with bottom halves off) also guards
 * pending and scheduled. scheduled: an IPI or a poll is on its way; set by
 * the producer that found it clear, cleared by the poll when it finds the
 * queue empty, before it completes (an answer queued in between sends a
 * new IPI, whose napi_schedule() marks the running context missed, and
 * napi_complete_done() polls again). A queued skb holds a reference on its
 * device (dev_hold()), dropped after it is processed: an interface
 * unregistered meanwhile waits for the poll.
 *
 * Lifetime: nothing is queued after aoe_netif_uninit() removed the receive
 * hook and synchronize_net() let running hooks finish. This step's uninit
 * comes after that: it waits (5 s at most) until no IPI sent is still to
 * run its handler (aoe_steer_ipis, dropped as the handler's last act, whose
 * return then ends before the synchronize_net() that follows: it runs with
 * interrupts off), disables every NAPI context (waits for a poll in
 * progress), deletes them, drops what is left queued (at unload no disk is
 * open, so no request waits for an answer); the targets an answer names
 * are torn down by a later step. A CPU that goes offline
 * hands its scheduled NAPI contexts to a live CPU (the core's
 * dev_cpu_dead()), which polls them; an answer for a target whose CPU is
 * offline is processed where it arrives.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched/isolation.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>

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
};

static struct aoe_steer_cpu __percpu *aoe_steer_cpus;
/* the NAPI contexts' device: never registered, never sends */
static struct net_device *aoe_steer_dev;
static atomic_t aoe_steer_next = ATOMIC_INIT(0);
/* IPIs sent whose handler has not finished */
static atomic_t aoe_steer_ipis = ATOMIC_INIT(0);

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

bool aoe_steer(const struct aoe_target *t, struct sk_buff *skb,
	       bool *dropped)
{
	int cpu = t->rx_cpu, here = smp_processor_id();
	struct aoe_steer_cpu *sc;
	bool kick;

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
	dev_hold(skb->dev);
	__skb_queue_tail(&sc->q, skb);
	WRITE_ONCE(sc->pending, sc->pending + 1);
	kick = !sc->scheduled;
	sc->scheduled = true;
	spin_unlock(&sc->q.lock);
	if (!kick)
		return true;
	/*
	 * Only another CPU is kicked: on its own CPU an answer is queued only
	 * behind pending ones, and pending answers mean one is scheduled.
	 */
	atomic_inc(&aoe_steer_ipis);
	if (smp_call_function_single_async(cpu, &sc->csd)) {
		atomic_dec(&aoe_steer_ipis);
		napi_schedule(&sc->napi);	/* went offline: poll it here */
	}
	return true;
}

static int aoe_steer_poll(struct napi_struct *napi, int budget)
{
	struct aoe_steer_cpu *sc = container_of(napi, struct aoe_steer_cpu,
						napi);
	struct sk_buff *skb;
	int n = 0;

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
	if (n < budget) {
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
		sc->pending = 0;
		sc->scheduled = false;
		INIT_CSD(&sc->csd, aoe_steer_ipi, sc);
		netif_napi_add(aoe_steer_dev, &sc->napi, aoe_steer_poll);
		napi_enable(&sc->napi);
	}
	return 0;
}

void aoe_steer_uninit(void)
{
	unsigned long end = jiffies + 5 * HZ;
	struct sk_buff *skb;
	int cpu;

	/* nothing sends IPIs any more (the receive hook is gone) */
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

		while ((skb = skb_dequeue(&sc->q))) {
			dev_put(skb->dev);
			kfree_skb(skb);
		}
	}
	aoe_free_netdev_dummy(aoe_steer_dev);
	free_percpu(aoe_steer_cpus);
}
