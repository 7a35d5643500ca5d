// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O engine's timers: each target has its own (t->timer, a soft
 * hrtimer: it runs in softirq context, like a timer_list), armed for the
 * first moment something is due and for nothing while the target is idle.
 * What is due at an exact time arms it for that time: a frame's RTO
 * (aoe_arm_rto() at each send; an answer moves it later, and when it ends a
 * backoff also earlier, receive.c path_answered() re-arms; a due RTO is
 * acted on by a second tick, AOE_RTO_CONFIRM_NS), a frame overtaken by
 * later answers leaving its RACK window (aoe_fast_retransmit() returns
 * when, for the answer path and the tick), a frame's deadline, a fence
 * ghost's expiry while requests are held. What is polled keeps a tick every AOE_TICK_MS:
 * frames waiting to be sent again (no window, no memory), requests queued
 * or held by the fence, answered writes draining, the watch after a frame
 * failed its deadline, requests no path carries, a late tick. The tick
 * does, in order: fast retransmit, RTO expiry (retransmit(): one backoff
 * and one window decrease per timeout event, a path that stops carrying
 * I/O; an IDENTIFY is resent on its own path only), deadlines (a frame
 * never answered, requests no path can carry, a target that stopped
 * answering: target_dead()), the stale-write fence's release, a kick for
 * what waits, fast-fail (policy.c), draining (io.c). One more timer (a
 * timer_list) watches the zombies (io.c) once a second while there are any.
 *
 * Re-arms only move a queued tick earlier (aoe_arm_timer_at()): the sends
 * and answers of a busy target do not push it out, and at most one re-arm
 * per send finds an earlier expiry than the queued one (an idle target's
 * first send, a resend with a shorter RTO).
 *
 * Locking: a target's tick (timer softirq) takes RCU and the target's lock
 * (never aoe_tgt_lock: targets' ticks share no lock), sends what it queued
 * after it drops it (BH off, inside RCU) and then ends requests.
 * Everything else here runs under the target's lock (aoe_fast_retransmit()
 * is also called by aoe_ata_rx()). The arms run under it and arm nothing
 * once t->removed is set (the first thing target_unlink() does): the
 * teardown stops the timer after the unlink (hrtimer_cancel() in process
 * context; the receive path's eviction of a diskless target frees it at
 * once only when hrtimer_try_to_cancel() says the tick is not running, a
 * queued one cancelled, target.c). Whether a tick is late is judged from
 * t->tick_due (ns), written where it is armed, under the lock.
 * aoe_arm_zombie_watch() runs in any context; once aoe_ata_uninit() has
 * set aoe_ata_stopping it arms nothing.
 */
#include <linux/ktime.h>
#include <linux/net.h>
#include <linux/rcupdate.h>
#include <linux/timer.h>

#include "aoe_trace.h"
#include "ata.h"
#include "fence.h"
#include "io.h"
#include "netlink.h"
#include "params.h"
#include "policy.h"
#include "steer.h"
#include "target.h"

#define AOE_TICK_MS		10
/* how much later than asked a tick may run, so that expiries share one */
#define AOE_TICK_SLACK_NS	(50 * NSEC_PER_USEC)
#define AOE_DUPTHRESH		3	/* later frames answered: presume lost */
/*
 * A tick this late means this machine did not run (a VM's vCPU descheduled,
 * a long irq-off section): answers that arrived meanwhile may still wait in
 * the receive backlog, or in a target on this machine that did not run
 * either. No timeouts then. A tick runs within a few hundred us of its
 * time otherwise, so one AOE_TICK_LATE_SOFT_US late defers its timeouts
 * to the next (polled) tick, once: ticks that are all a little late (a
 * softirq load) still decide.
 */
#define AOE_TICK_LATE_MS	20
#define AOE_TICK_LATE_SOFT_US	2000
/*
 * Ticks are far apart now (an RTO away), so one on time says nothing of
 * the time before it: a pause of this machine may have just ended. A due
 * RTO is acted on by a second punctual tick this much later, after the
 * receive backlog had its turn (as a 10 ms tick's predecessor vouched
 * that the machine ran). RACK decisions are not confirmed: they follow
 * answers, and a wrong one costs a resend and a window step, no backoff.
 */
#define AOE_RTO_CONFIRM_NS	(1000 * NSEC_PER_USEC)

#define AOE_ZOMBIE_WATCH_MS	1000

struct timer_list aoe_zombie_timer;
bool aoe_ata_stopping;

/*
 * Arm @t's tick for @when (ns, CLOCK_MONOTONIC), unless it is already
 * queued for then or earlier: re-arms only ever move it earlier, so a busy
 * target's sends and answers do not push its tick out or thrash it.
 */
void aoe_arm_timer_at(struct aoe_target *t, u64 when)
{
	u64 now;

	aoe_t_assert(t);
	if (t->removed)
		return;
	if (hrtimer_is_queued(&t->timer) && t->tick_due <= when)
		return;
	/* a time past (a flush's shortened RTO): now, or it is "late" */
	now = ktime_get_ns();
	t->tick_due = max(when, now);
	when = t->tick_due;
	hrtimer_start_range_ns(&t->timer, ns_to_ktime(when), AOE_TICK_SLACK_NS,
			       HRTIMER_MODE_ABS_SOFT);
}

/* A tick within AOE_TICK_MS: for what is polled (see the top). */
void aoe_arm_timer(struct aoe_target *t)
{
	aoe_arm_timer_at(t, ktime_get_ns() + AOE_TICK_MS * NSEC_PER_MSEC);
}

static u64 aoe_earliest(u64 a, u64 b)
{
	return !a || (b && b < a) ? b : a;
}

void aoe_arm_zombie_watch(void)
{
	if (!READ_ONCE(aoe_ata_stopping) && !timer_pending(&aoe_zombie_timer))
		mod_timer(&aoe_zombie_timer,
			  jiffies + msecs_to_jiffies(AOE_ZOMBIE_WATCH_MS));
}

/* @io is lost: shrink its path's window; it waits to be sent again. */
static void io_lost(struct aoe_target *t, struct aoe_io *io, bool timeout)
{
	if (timeout)
		aoe_cwnd_loss(&io->path->win, io->epoch);
	else
		aoe_cwnd_overtaken(&io->path->win, io->epoch);
	aoe_io_requeue(t, io);
}

/*
 * @p stopped carrying I/O (retransmit()): its frames still in flight wait
 * for another path now, not one by one for their own RTO, backed off by the
 * events that downed @p. Their answers on @p are dropped while it is down
 * (receive.c answer_allowed()); if @p comes back first, the previous tag
 * is still taken. An IDENTIFY stays: it checks @p's device. Nothing is
 * freed, so the tick's frame walk goes on.
 */
static void path_down_resend(struct aoe_target *t, struct aoe_path *p)
{
	struct aoe_io *io;

	list_for_each_entry(io, &t->frames, node)
		if (io->path == p && !aoe_io_waiting(io) && !io->ident)
			aoe_io_requeue(t, io);
}

/*
 * The retransmission timer of @io expired. Frames that time out together
 * are one event (aoe_timeouts_add()): one RTO backoff, one step towards
 * giving up on the path, one window decrease (aoe_cwnd_loss(), per epoch).
 * A path stops carrying I/O after AOE_PATH_FAIL_EVENTS events in a row,
 * if another path works (answers, and its last answer was no refusal:
 * a path the target refuses with AoE error 6 carries nothing, so downing
 * the one path a reservation permits would fail all I/O): when all time
 * out, the target is down or overloaded and the deadline decides. A
 * downed path's other frames leave it at once (path_down_resend()).
 */
static void retransmit(struct aoe_target *t, struct aoe_io *io)
{
	struct aoe_path *p = io->path;
	struct aoe_path *other;

	if (trace_aoe_frame_timeout_enabled())
		trace_aoe_frame_timeout(t->shelf, t->slot, p->ifindex, p->mac,
					io->tag, io->lba,
					io->len / AOE_SECTOR_SIZE, aoe_io_cmd(io),
					ktime_us_delta(ktime_get(), io->sent),
					io->flush ?
					aoe_flush_rto(aoe_rtt_rto(&p->rtt),
						      io->tries) :
					aoe_rtt_rto(&p->rtt));
	p->cnt.timeouts++;
	t->cnt.timeouts++;
	if (io->flush) {
		/* a slow disk, not a lossy path: no backoff, window or event */
		aoe_io_requeue(t, io);
		return;
	}
	io->rto_fired = true;
	io_lost(t, io, true);
	if (!aoe_timeouts_add(&p->tmo, io->seq, p->tx_seq))
		return;
	aoe_rtt_backoff(&p->rtt);
	p->cnt.backoffs++;
	t->cnt.backoffs++;
	if (p->tmo.in_row < AOE_PATH_FAIL_EVENTS ||
	    p->state != AOE_PATH_STATE_UP)
		return;
	list_for_each_entry(other, &t->paths, node) {
		if (other != p && aoe_path_usable(other) && !other->tmo.in_row &&
		    !other->refusing) {
			aoe_path_set_state(t, p, AOE_PATH_STATE_DOWN);
			path_down_resend(t, p);
			aoe_netlink_notify(AOE_CMD_PATH_DOWN, t, p);
			net_warn_ratelimited("e%u.%u: path %s -> %pM stops carrying I/O after %u timeout events\n",
					     t->shelf, t->slot, p->ifname,
					     p->mac, p->tmo.in_row);
			return;
		}
	}
}

/*
 * Targets mostly answer a path's frames in order: when frames sent after @io
 * on its path have been answered and @io has waited a reordering window longer
 * than the last of them took (RACK, RFC 8985), @io was lost: resend it now,
 * not at RTO. Called on each answer and from the tick. Returns when the
 * first frame still inside the window leaves it (ns; 0: none is), for
 * which the caller arms the tick: a tail loss is resent at its RACK
 * deadline, not at the next tick or the RTO.
 *
 * The test is on each frame's own send time, not on the order frames left
 * in: a path's frames may leave out of sequence (a NIC's TX queues, chosen
 * by the sending CPU; two CPUs transmitting after the lock, send.c). A frame
 * that left up to a reordering window after later ones is not presumed lost;
 * one presumed lost and then answered widens the window (receive.c,
 * aoe_rtt_reordered()), so a link that reorders stops costing resends.
 */
u64 aoe_fast_retransmit(struct aoe_target *t, struct aoe_path *p, ktime_t now)
{
	s64 wait_us = (s64)p->acked_rtt_us + aoe_rtt_reo_wnd(&p->rtt);
	struct aoe_io *io;
	u64 next = 0;

	list_for_each_entry(io, &t->frames, node) {
		if (io->path != p || aoe_io_waiting(io) || io->flush || io->ident ||
		    (s32)(p->acked_seq - io->seq) < AOE_DUPTHRESH)
			continue;
		if (ktime_us_delta(now, io->sent) < wait_us) {
			/* overtaken but still inside the window: lost then */
			next = aoe_earliest(next, ktime_to_ns(io->sent) +
					    (u64)wait_us * NSEC_PER_USEC);
			continue;
		}
		p->cnt.lost++;
		t->cnt.lost++;
		aoe_rtt_lost(&p->rtt);
		io_lost(t, io, false);
	}
	return next;
}

/*
 * The timer of in-flight @io runs from its transmission or from the last
 * answer on its path, whichever is later (RFC 6298 5.3): a target answers a
 * path's frames in order, so while it answers, the later frames are queued
 * there, not lost (and a loss among them is caught by aoe_fast_retransmit()).
 * When it expires, in ns.
 */
static u64 rto_expiry(const struct aoe_io *io)
{
	const struct aoe_path *p = io->path;
	ktime_t from = ktime_after(p->last_ack, io->sent) ? p->last_ack : io->sent;

	if (io->flush)
		return ktime_to_ns(io->sent) +
		       (u64)aoe_flush_rto(aoe_rtt_rto(&p->rtt), io->tries) *
		       NSEC_PER_USEC;
	return ktime_to_ns(from) + (u64)aoe_rtt_rto(&p->rtt) * NSEC_PER_USEC;
}

void aoe_arm_rto(struct aoe_target *t, struct aoe_io *io)
{
	aoe_arm_timer_at(t, rto_expiry(io));
}

/*
 * An IDENTIFY checks the device behind its one path: resent there only, a
 * few times (its waiter gives up after that), with no effect on the path's
 * window or health.
 */
static void ident_resend(struct aoe_target *t, struct aoe_io *io,
			 struct sk_buff_head *q)
{
	struct aoe_path *p = io->path;

	if (io->tries >= AOE_IDENT_RESENDS)
		return;
	io->tries++;
	p->cnt.retransmits++;
	t->cnt.retransmits++;
	aoe_path_out_dec(p);
	aoe_io_send(t, io, p, q);
}

static void target_dead(struct aoe_target *t, struct list_head *done)
{
	aoe_ata_fail_all(t, done);
	aoe_target_set_state(t, AOE_TARGET_STATE_DOWN);
	pr_warn("e%u.%u: target down: no answer for %u s, I/O failed\n",
		t->shelf, t->slot, aoe_policy_target_deadsecs(t));
}

enum hrtimer_restart aoe_target_tick(struct hrtimer *timer)
{
	struct aoe_target *t = container_of(timer, struct aoe_target, timer);
	bool deadlines = !(aoe_test_faults & AOE_TEST_NO_DEADLINE);
	bool again = false, late, confirmed, confirm = false;
	unsigned long dead, j;
	struct sk_buff_head q;
	struct aoe_io *io, *tmp;
	struct aoe_path *p;
	u64 now_ns, next = 0, expiry;
	ktime_t now;
	LIST_HEAD(done);

	__skb_queue_head_init(&q);
	rcu_read_lock();
	spin_lock_bh(&t->lock);
	if (t->removed)		/* unlinked: its I/O failed, nothing re-arms */
		goto unlock;
	j = jiffies;	/* first: a deadline computed below is never early */
	now = ktime_get();
	now_ns = ktime_to_ns(now);
	/* armed under the lock: an arm since this tick began is not it */
	late = now_ns > t->tick_due + AOE_TICK_LATE_MS * NSEC_PER_MSEC ||
	       (aoe_test_faults & AOE_TEST_LATE_TICKS) ||
	       aoe_steer_stalled(t);
	if (now_ns > t->tick_due + AOE_TICK_LATE_SOFT_US * NSEC_PER_USEC &&
	    !t->tick_deferred) {
		late = true;
		t->tick_deferred = true;
	} else {
		t->tick_deferred = false;
	}
	/* the confirming tick: not late, and not one that came early */
	confirmed = t->rto_confirm_at && now_ns >= t->rto_confirm_at && !late;
	if (confirmed || late)
		t->rto_confirm_at = 0;
	/* (kept for an early tick only while an RTO is still due: below) */
	dead = aoe_policy_dead_jiffies(t);
	/*
	 * Not when late: the answers may be in the backlog. Only these
	 * decisions wait for a punctual tick; deadlines never do.
	 */
	if (!late)
		list_for_each_entry(p, &t->paths, node)
			next = aoe_earliest(next,
					    aoe_fast_retransmit(t, p, now));
	list_for_each_entry_safe(io, tmp, &t->frames, node) {
		if (deadlines && time_after(j, io->first_sent + dead)) {
			if (time_after(j, t->last_rx + dead)) {
				target_dead(t, &done);
				break;
			}
			/* the target answers, but never this frame */
			aoe_count_lost(t, io);
			aoe_io_finish(t, io, BLK_STS_IOERR, &done);
			if (!t->lost_since)
				t->lost_since = jiffies | 1;
			continue;
		}
		/* its deadline: the first jiffy after first_sent + dead */
		if (deadlines)
			next = aoe_earliest(next, now_ns +
				(u64)(io->first_sent + dead + 1 - j) *
				TICK_NSEC);
		if (late || aoe_io_waiting(io))
			continue;
		expiry = rto_expiry(io);
		if (now_ns < expiry) {
			next = aoe_earliest(next, expiry);
			continue;
		}
		if (!confirmed) {	/* see AOE_RTO_CONFIRM_NS */
			confirm = true;
			continue;
		}
		/* resent (aoe_kick() below, aoe_io_send()) arms its own */
		if (io->ident)
			ident_resend(t, io, &q);
		else
			retransmit(t, io);
	}
	if (t->fence.n || !list_empty(&t->fenced))
		aoe_fence_release(t, now_ns, deadlines, &done);
	aoe_kick(t, &q);
	/* fast-fail: I/O and no usable path for too long */
	if (deadlines && t->state == AOE_TARGET_STATE_UP &&
	    aoe_policy_target_tick(t, !list_empty(&t->frames) ||
				   !list_empty(&t->rq_queue) ||
				   !list_empty(&t->fenced)))
		aoe_fail_pending(t, &done);
	aoe_drain(t, false, &done);
	if (t->outstanding || !list_empty(&t->rq_queue) ||
	    !list_empty(&t->draining) || !list_empty(&t->fenced))
		again = true;
	/* requests waiting with no path to carry them: a deadline too */
	if (list_empty(&t->rq_queue) || aoe_pick_path(t, false)) {
		t->stalled_since = 0;
	} else if (!t->stalled_since) {
		t->stalled_since = jiffies | 1;
	} else if (deadlines &&
		   time_after(jiffies, t->stalled_since + dead)) {
		t->stalled_since = 0;
		target_dead(t, &done);
	}
	/*
	 * A frame failed its deadline while the target still answered
	 * others: if it answers nothing more for a deadline, it is
	 * dead, even when no frame is left to find that (the failed
	 * one was a reader's only request).
	 */
	if (t->lost_since) {
		if (t->state != AOE_TARGET_STATE_UP ||
		    time_after(t->last_rx, t->lost_since)) {
			t->lost_since = 0;
		} else if (deadlines &&
			   time_after(jiffies, t->last_rx + dead)) {
			t->lost_since = 0;
			target_dead(t, &done);
		} else {
			again = true;
		}
	}
	if (!confirm)
		t->rto_confirm_at = 0;
	if (again) {
		/*
		 * Frames only in flight: the tick runs at the first RACK,
		 * RTO or deadline expiry computed above (and sends arm
		 * theirs, aoe_arm_rto()), or to confirm a due RTO. Anything
		 * else is polled: frames waiting to be sent again, requests
		 * queued or held (the fence's ghosts expire exactly, its
		 * overlaps are polled), answered writes draining, a watch
		 * after a lost frame, fast-fail's clock while it runs, a
		 * late tick.
		 */
		if (confirm) {
			if (!t->rto_confirm_at)
				t->rto_confirm_at = now_ns + AOE_RTO_CONFIRM_NS;
			next = aoe_earliest(next, t->rto_confirm_at);
		}
		if (!list_empty(&t->fenced))
			next = aoe_earliest(next,
					    aoe_fence_next_expiry(&t->fence));
		if (late || !next || !list_empty(&t->resend) ||
		    !list_empty(&t->rq_queue) || !list_empty(&t->fenced) ||
		    !list_empty(&t->draining) || t->lost_since ||
		    t->stalled_since || t->policy.nopath_since)
			next = aoe_earliest(next, now_ns +
					    AOE_TICK_MS * NSEC_PER_MSEC);
		aoe_arm_timer_at(t, max(next, now_ns + AOE_TICK_SLACK_NS));
	}
unlock:
	aoe_steer_tx(t, &q);
	spin_unlock(&t->lock);
	aoe_ata_xmit(&q);	/* BH still off: see send.c */
	local_bh_enable();
	rcu_read_unlock();
	aoe_ata_end_requests(&done);
	return HRTIMER_NORESTART;
}

/*
 * The zombies' watch: while a frame's request ended with an skb still
 * holding its pages, say once a minute if that lasts (aoe_warn_held()).
 */
void aoe_zombie_tick(struct timer_list *timer)
{
	bool again;

	rcu_read_lock();
	local_bh_disable();
	again = aoe_warn_held();
	local_bh_enable();
	rcu_read_unlock();
	if (again)
		aoe_arm_zombie_watch();
}
