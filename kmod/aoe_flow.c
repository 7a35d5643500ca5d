// SPDX-License-Identifier: GPL-2.0
/*
 * aoekit: RTT/RTO estimation and congestion window. Portable: aoe_flow.h.
 */
#include "aoe_flow.h"

void aoe_rtt_init(struct aoe_rtt *r)
{
	r->srtt_us = 0;
	r->rttvar_us = 0;
	r->min_us = 0;
	r->backoff = 0;
	r->floor_us = 0;
	r->reo_mult = 1;
	r->reo_persist = 0;
}

void aoe_rtt_sample(struct aoe_rtt *r, uint32_t us)
{
	uint32_t err;

	if (!us)
		us = 1;
	if (!r->min_us || us < r->min_us)
		r->min_us = us;
	r->backoff = 0;
	r->floor_us -= r->floor_us / 256;
	if (!r->srtt_us) {
		r->srtt_us = us;
		r->rttvar_us = us / 2;
		return;
	}
	/* srtt += (sample - srtt) / 8; rttvar += (|err| - rttvar) / 4 */
	if (us >= r->srtt_us) {
		err = us - r->srtt_us;
		r->srtt_us += err / 8;
	} else {
		err = r->srtt_us - us;
		r->srtt_us -= err / 8;
	}
	if (err >= r->rttvar_us)
		r->rttvar_us += (err - r->rttvar_us) / 4;
	else
		r->rttvar_us -= (r->rttvar_us - err) / 4;
	if (!r->srtt_us)
		r->srtt_us = 1;
}

uint32_t aoe_rtt_rto(const struct aoe_rtt *r)
{
	uint64_t rto;

	if (!r->srtt_us)
		rto = AOE_RTO_INIT_US;
	else
		rto = (uint64_t)r->srtt_us + 4ull * r->rttvar_us;
	if (rto < AOE_RTO_MIN_US)
		rto = AOE_RTO_MIN_US;
	if (rto < r->floor_us)
		rto = r->floor_us;
	rto <<= r->backoff;
	if (rto > AOE_RTO_MAX_US)
		rto = AOE_RTO_MAX_US;
	return (uint32_t)rto;
}

void aoe_rtt_backoff(struct aoe_rtt *r)
{
	if (r->backoff < AOE_RTO_MAX_BACKOFF)
		r->backoff++;
}

uint32_t aoe_flush_rto(uint32_t rto_us, unsigned int tries)
{
	uint64_t t = (uint64_t)rto_us * 4;

	if (t < AOE_FLUSH_RTO_MIN_US)
		t = AOE_FLUSH_RTO_MIN_US;
	while (tries-- && t < AOE_FLUSH_RTO_MAX_US)
		t *= 2;
	return t > AOE_FLUSH_RTO_MAX_US ? AOE_FLUSH_RTO_MAX_US : (uint32_t)t;
}

void aoe_rtt_answered(struct aoe_rtt *r)
{
	r->backoff = 0;
}

void aoe_rtt_spurious(struct aoe_rtt *r, uint32_t delay_us)
{
	uint64_t f = (uint64_t)delay_us * 3 / 2;

	if (f > AOE_RTO_MAX_US)
		f = AOE_RTO_MAX_US;
	if (f > r->floor_us)
		r->floor_us = (uint32_t)f;
	r->backoff = 0;
}

uint32_t aoe_rtt_reo_wnd(const struct aoe_rtt *r)
{
	uint64_t w = (uint64_t)r->reo_mult * r->min_us / 4;

	if (r->srtt_us && w > r->srtt_us)
		w = r->srtt_us;
	return (uint32_t)w;
}

void aoe_rtt_reordered(struct aoe_rtt *r)
{
	if (r->reo_mult < AOE_REO_MULT_MAX)
		r->reo_mult++;
	r->reo_persist = AOE_REO_PERSIST;
}

void aoe_rtt_lost(struct aoe_rtt *r)
{
	if (!r->reo_persist || --r->reo_persist)
		return;
	r->reo_mult = r->reo_mult > 2 ? r->reo_mult / 2 : 1;
	if (r->reo_mult > 1)
		r->reo_persist = AOE_REO_PERSIST;
}

void aoe_cwnd_init(struct aoe_cwnd *w, uint32_t cap)
{
	w->cap = cap ? cap : 1;
	w->cwnd = w->cap < 2 ? w->cap : 2;
	w->ssthresh = w->cap;
	w->acked = 0;
	w->epoch = 0;
}

void aoe_cwnd_set_cap(struct aoe_cwnd *w, uint32_t cap)
{
	w->cap = cap ? cap : 1;
	if (w->cwnd > w->cap)
		w->cwnd = w->cap;
	if (w->ssthresh > w->cap)
		w->ssthresh = w->cap;
	if (!w->cwnd)
		w->cwnd = 1;
}

void aoe_cwnd_ack(struct aoe_cwnd *w)
{
	if (w->cwnd >= w->cap)
		return;
	if (w->cwnd < w->ssthresh) {
		w->cwnd++;		/* slow start: +1 per ack */
		return;
	}
	if (++w->acked >= w->cwnd) {	/* congestion avoidance: +1 per window */
		w->acked = 0;
		w->cwnd++;
	}
}

bool aoe_cwnd_overtaken(struct aoe_cwnd *w, uint32_t epoch)
{
	uint32_t d;

	if (epoch != w->epoch)
		return false;
	d = w->cwnd / 8;
	if (!d && w->cwnd > 1)
		d = 1;
	w->cwnd -= d;
	w->ssthresh = w->cwnd;
	w->acked = 0;
	w->epoch++;
	return true;
}

bool aoe_cwnd_loss(struct aoe_cwnd *w, uint32_t epoch)
{
	if (epoch != w->epoch)
		return false;
	w->ssthresh = w->cwnd / 2;
	if (w->ssthresh < 1)
		w->ssthresh = 1;
	w->cwnd = w->ssthresh;
	w->acked = 0;
	w->epoch++;
	return true;
}

void aoe_timeouts_init(struct aoe_timeouts *to)
{
	to->in_row = 0;
	to->seq = 0;
	to->any = false;
}

bool aoe_timeouts_add(struct aoe_timeouts *to, uint32_t seq, uint32_t tx_seq)
{
	/* sent before the last event began: part of it (serial arithmetic) */
	if (to->any && (int32_t)(seq - to->seq) <= 0)
		return false;
	to->any = true;
	to->seq = tx_seq;
	to->in_row++;
	return true;
}

void aoe_timeouts_answered(struct aoe_timeouts *to)
{
	to->in_row = 0;
}

bool aoe_port_room(uint32_t outstanding, uint32_t bufcnt)
{
	return outstanding < (bufcnt ? bufcnt : 1);
}
