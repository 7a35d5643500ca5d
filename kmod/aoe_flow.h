/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aoekit: per-path flow control in portable C (module and unit tests):
 * round-trip time estimate and retransmission timeout (Jacobson/Karels,
 * Karn's rule is the caller's: sample only frames sent once), and a
 * congestion window (slow start, additive increase, multiplicative decrease:
 * by half on a timeout, by an eighth on a frame overtaken by later answers;
 * at most one decrease per window of frames) capped by the target's buffer
 * count and aoe_maxout; timeout events (a burst counts once) and the
 * buffer count of a target port shared by its paths.
 */
#ifndef AOE_FLOW_H
#define AOE_FLOW_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define AOE_RTO_MIN_US		40000u		/* 40 ms: losses are caught earlier by order */
#define AOE_RTO_MAX_US		4000000u	/* 4 s */
#define AOE_RTO_INIT_US		1000000u	/* before the first sample (as TCP) */
#define AOE_RTO_MAX_BACKOFF	6
#define AOE_FLUSH_RTO_MIN_US	5000000u	/* 5 s: a disk's flush takes long */
#define AOE_FLUSH_RTO_MAX_US	40000000u	/* 40 s */
#define AOE_REO_MULT_MAX	255	/* reordering window: at most 255 x min RTT / 4 (as Linux TCP's reo_wnd_steps) */
#define AOE_REO_PERSIST		16	/* losses before a widened window halves */

struct aoe_rtt {
	uint32_t srtt_us;	/* smoothed RTT, 0 until the first sample */
	uint32_t rttvar_us;	/* mean deviation */
	uint32_t min_us;	/* smallest sample, 0 until the first */
	uint32_t backoff;	/* RTO doublings since the last good sample */
	uint32_t floor_us;	/* learned from spurious timeouts, decays */
	uint32_t reo_mult;	/* reordering window in quarters of min_us */
	uint32_t reo_persist;	/* losses left before reo_mult goes back to 1 */
};

void aoe_rtt_init(struct aoe_rtt *r);
void aoe_rtt_sample(struct aoe_rtt *r, uint32_t us);
/* The current timeout: srtt + 4 * rttvar, bounded, doubled per backoff. */
uint32_t aoe_rtt_rto(const struct aoe_rtt *r);
void aoe_rtt_backoff(struct aoe_rtt *r);
/*
 * The retransmission timeout of a FLUSH CACHE frame sent @tries times
 * before on a path whose timeout is @rto_us: a flush answers when the
 * target's disk has written its cache, seconds on a real disk, which says
 * nothing about the network. At least AOE_FLUSH_RTO_MIN_US or 4 x @rto_us,
 * doubled per earlier transmission, at most AOE_FLUSH_RTO_MAX_US (the
 * deadline, aoe_deadsecs, still applies).
 */
uint32_t aoe_flush_rto(uint32_t rto_us, unsigned int tries);
/*
 * A retransmitted frame was answered: Karn's rule forbids a sample, but the
 * path works again, so the backoff ends.
 */
void aoe_rtt_answered(struct aoe_rtt *r);
/*
 * The answer to a transmission that already timed out arrived @delay_us after
 * it was sent: the timeout was spurious (a stall, not a loss). Raise the RTO
 * floor above that delay; it decays again with later samples.
 */
void aoe_rtt_spurious(struct aoe_rtt *r, uint32_t delay_us);
/*
 * The reordering window (RACK, RFC 8985): a frame sent before frames that
 * have been answered counts as lost only once it has waited this much longer
 * than the last of them took. A quarter of the smallest RTT, times a factor
 * that grows by one each time a frame presumed lost turns out to have been
 * answered late (aoe_rtt_reordered()) and halves after each
 * AOE_REO_PERSIST losses without such a surprise (aoe_rtt_lost()), down to
 * 1; never more than the smoothed RTT. A link that reorders but does not
 * lose keeps its wide window, and a burst of real losses costs it half,
 * not all (learning it back costs a frame sent again per step); a lossy
 * link that does not reorder detects losses early again. The factor may
 * grow to 255, as Linux TCP's (tcp_rack_reo_wnd()), so the smoothed RTT is
 * what bounds it: a LAN's smallest RTT is tens of microseconds, its RTT
 * under load a millisecond, and answers reordered between two CPUs' queues
 * by a few hundred microseconds (make bench on a veth, 6.12: 0.8 % of the
 * frames presumed lost and sent again at 16).
 */
uint32_t aoe_rtt_reo_wnd(const struct aoe_rtt *r);
void aoe_rtt_reordered(struct aoe_rtt *r);
void aoe_rtt_lost(struct aoe_rtt *r);

struct aoe_cwnd {
	uint32_t cwnd;		/* frames allowed in flight */
	uint32_t ssthresh;
	uint32_t acked;		/* acks counted toward the next increase */
	uint32_t cap;		/* min(buffer count, aoe_maxout), at least 1 */
	uint32_t epoch;		/* bumped at each decrease */
};

void aoe_cwnd_init(struct aoe_cwnd *w, uint32_t cap);
void aoe_cwnd_set_cap(struct aoe_cwnd *w, uint32_t cap);
void aoe_cwnd_ack(struct aoe_cwnd *w);
/*
 * A frame sent in @epoch was lost (timed out): the path or the target is
 * overloaded or gone. Halves the window, once per epoch: losses of frames
 * sent before the last decrease are already paid for. Returns true when the
 * window was decreased.
 */
bool aoe_cwnd_loss(struct aoe_cwnd *w, uint32_t epoch);
/*
 * A frame sent in @epoch was overtaken by later answers: an isolated loss,
 * on a LAN mostly a link error rather than a full queue (the target's buffer
 * count is never exceeded, and an overload shows as timeouts). Takes an
 * eighth off the window (at least one frame), once per epoch, so that steady
 * random loss does not collapse the window; returns true when it did.
 */
bool aoe_cwnd_overtaken(struct aoe_cwnd *w, uint32_t epoch);

/*
 * Timeout events of a path. Frames that time out together are one event,
 * however many and over however many ticks: every frame sent before the last
 * event began belongs to it (a blackout loses a whole window at once). Only a
 * frame sent after that, timing out too, starts the next event. An event
 * backs the RTO off once and is one step towards giving up on the path; the
 * window already shrinks once per epoch (aoe_cwnd_loss()).
 */
struct aoe_timeouts {
	uint32_t in_row;	/* events since the last answer */
	uint32_t seq;		/* the path's send sequence when the last began */
	bool any;		/* an event happened: seq is valid */
};

void aoe_timeouts_init(struct aoe_timeouts *to);
/*
 * The frame the path sent as number @seq timed out; @tx_seq is the number of
 * the path's latest transmission. Returns true when this begins a new event.
 */
bool aoe_timeouts_add(struct aoe_timeouts *to, uint32_t seq, uint32_t tx_seq);
/* The path answered: the events in a row end (the burst boundary stays). */
void aoe_timeouts_answered(struct aoe_timeouts *to);

/*
 * A target port (one target MAC) takes at most its buffer count of frames
 * at once, over all the paths that reach it together: room for one more?
 * A buffer count below 1 counts as 1.
 */
bool aoe_port_room(uint32_t outstanding, uint32_t bufcnt);

#ifdef __cplusplus
}
#endif

#endif /* AOE_FLOW_H */
