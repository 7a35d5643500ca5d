// Unit tests for the portable RTT/RTO and congestion window (kmod/aoe_flow.c).
#include <doctest/doctest.h>

#include "aoe_flow.h"

TEST_CASE("flow: RTO before any sample is the initial timeout")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_INIT_US);
}

TEST_CASE("flow: a steady RTT converges and the RTO follows it")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 200; i++)
        aoe_rtt_sample(&r, 60000);
    CHECK(r.srtt_us == 60000);
    CHECK(r.rttvar_us < 100);
    CHECK(r.min_us == 60000);
    CHECK(aoe_rtt_rto(&r) >= 60000);
    CHECK(aoe_rtt_rto(&r) <= 60400);
}

TEST_CASE("flow: the reordering window is a quarter of the smallest RTT, then learns")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    CHECK(aoe_rtt_reo_wnd(&r) == 0);  // no sample yet: order alone decides
    aoe_rtt_sample(&r, 4000);
    aoe_rtt_sample(&r, 2000);
    CHECK(r.min_us == 2000);
    CHECK(aoe_rtt_reo_wnd(&r) == 500);
    // frames presumed lost were answered after all: the window widens ...
    aoe_rtt_reordered(&r);
    CHECK(aoe_rtt_reo_wnd(&r) == 1000);
    for (int i = 0; i < 1000; i++)
        aoe_rtt_reordered(&r);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX);
    // ... but never beyond the smoothed RTT
    CHECK(aoe_rtt_reo_wnd(&r) == r.srtt_us);
    CHECK(r.srtt_us < AOE_REO_MULT_MAX * 2000 / 4);
    // samples alone do not narrow it: a link that reorders keeps reordering
    for (int i = 0; i < 100000; i++)
        aoe_rtt_sample(&r, 2000);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX);
    // real losses do: each AOE_REO_PERSIST of them without a surprise halve it
    for (int i = 0; i < AOE_REO_PERSIST - 1; i++)
        aoe_rtt_lost(&r);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX);
    aoe_rtt_reordered(&r);  // a surprise starts the count again
    for (int i = 0; i < AOE_REO_PERSIST - 1; i++)
        aoe_rtt_lost(&r);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX);
    aoe_rtt_lost(&r);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX / 2);
    for (int i = 0; i < AOE_REO_PERSIST; i++)
        aoe_rtt_lost(&r);
    CHECK(r.reo_mult == AOE_REO_MULT_MAX / 4);
    // ... down to 1 (255 -> 127 -> 63 -> 31 -> 15 -> 7 -> 3 -> 1)
    for (int i = 0; i < 5 * AOE_REO_PERSIST - 1; i++)
        aoe_rtt_lost(&r);
    CHECK(r.reo_mult == 3);
    aoe_rtt_lost(&r);
    CHECK(r.reo_mult == 1);
    CHECK(aoe_rtt_reo_wnd(&r) == 500);
    aoe_rtt_lost(&r);  // nothing to undo at 1
    CHECK(r.reo_mult == 1);
}

TEST_CASE("flow: the reordering window can grow to the smoothed RTT when the smallest RTT is tiny")
{
    // a LAN: 28 us unloaded, about 1.1 ms with a window of frames queued
    aoe_rtt r;
    aoe_rtt_init(&r);
    aoe_rtt_sample(&r, 28);
    for (int i = 0; i < 200; i++)
        aoe_rtt_sample(&r, 1100);
    CHECK(r.min_us == 28);
    CHECK(aoe_rtt_reo_wnd(&r) == 7);
    // answers reordered by ~1 ms between two CPUs' queues: each surprise
    // widens the window until it covers them
    int n = 0;
    while (aoe_rtt_reo_wnd(&r) < r.srtt_us && n < 1000) {
        aoe_rtt_reordered(&r);
        n++;
    }
    CHECK(aoe_rtt_reo_wnd(&r) == r.srtt_us);
    CHECK(n < AOE_REO_MULT_MAX);
    CHECK(n > 16);  // the old cap (4 x 28 us) would have stopped at 112 us
}

TEST_CASE("flow: RTO never below the minimum, never above the maximum")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 50; i++)
        aoe_rtt_sample(&r, 10);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MIN_US);
    for (int i = 0; i < 20; i++)
        aoe_rtt_backoff(&r);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MIN_US << AOE_RTO_MAX_BACKOFF);
    aoe_rtt_init(&r);
    aoe_rtt_sample(&r, 3000000);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MAX_US);
}

TEST_CASE("flow: backoff doubles and a good sample resets it")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 100; i++)
        aoe_rtt_sample(&r, 50000);
    uint32_t base = aoe_rtt_rto(&r);
    CHECK(base > AOE_RTO_MIN_US);
    aoe_rtt_backoff(&r);
    CHECK(aoe_rtt_rto(&r) == 2 * base);
    aoe_rtt_backoff(&r);
    CHECK(aoe_rtt_rto(&r) == 4 * base);
    aoe_rtt_sample(&r, 50000);
    CHECK(aoe_rtt_rto(&r) == base);
}

TEST_CASE("flow: an answered retransmission ends the backoff without a sample")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 100; i++)
        aoe_rtt_sample(&r, 50000);
    aoe_rtt before = r;
    uint32_t base = aoe_rtt_rto(&r);
    for (int i = 0; i < 3; i++)
        aoe_rtt_backoff(&r);
    CHECK(aoe_rtt_rto(&r) == 8 * base);
    aoe_rtt_answered(&r);
    CHECK(aoe_rtt_rto(&r) == base);
    CHECK(r.srtt_us == before.srtt_us);
    CHECK(r.rttvar_us == before.rttvar_us);
    CHECK(r.min_us == before.min_us);
}

TEST_CASE("flow: jittery RTT widens the deviation")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 200; i++)
        aoe_rtt_sample(&r, i % 2 ? 10000 : 30000);
    CHECK(r.srtt_us > 15000);
    CHECK(r.srtt_us < 25000);
    CHECK(r.rttvar_us > 5000);
    CHECK(r.min_us == 10000);
    CHECK(aoe_rtt_rto(&r) > 2 * r.srtt_us);
}

TEST_CASE("flow: slow start doubles per window, then additive increase")
{
    aoe_cwnd w;
    aoe_cwnd_init(&w, 64);
    CHECK(w.cwnd == 2);
    // slow start: one ack adds one frame until the cap
    for (int i = 0; i < 10; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 12);
    // a loss halves it
    CHECK(aoe_cwnd_loss(&w, w.epoch));
    CHECK(w.cwnd == 6);
    CHECK(w.ssthresh == 6);
    // congestion avoidance: a full window of acks adds one
    for (int i = 0; i < 5; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 6);
    aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 7);
}

TEST_CASE("flow: one decrease per epoch")
{
    aoe_cwnd w;
    aoe_cwnd_init(&w, 16);
    for (int i = 0; i < 20; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 16);
    uint32_t e = w.epoch;
    CHECK(aoe_cwnd_loss(&w, e));
    CHECK(w.cwnd == 8);
    // more frames of the same flight lost: no further decrease
    CHECK_FALSE(aoe_cwnd_loss(&w, e));
    CHECK_FALSE(aoe_cwnd_loss(&w, e));
    CHECK(w.cwnd == 8);
    // a frame sent after the decrease counts again
    CHECK(aoe_cwnd_loss(&w, w.epoch));
    CHECK(w.cwnd == 4);
}

TEST_CASE("flow: a frame overtaken by later answers takes an eighth, once per epoch")
{
    aoe_cwnd w;
    aoe_cwnd_init(&w, 16);
    for (int i = 0; i < 100; i++)
        aoe_cwnd_ack(&w);
    REQUIRE(w.cwnd == 16);
    uint32_t e = w.epoch;
    CHECK(aoe_cwnd_overtaken(&w, e));
    CHECK(w.cwnd == 14);
    CHECK(w.ssthresh == 14);
    CHECK_FALSE(aoe_cwnd_overtaken(&w, e));
    CHECK_FALSE(aoe_cwnd_loss(&w, e));  // same flight: paid for
    CHECK(w.cwnd == 14);
    // steady isolated losses, one per window: the window holds up
    for (int round = 0; round < 50; round++) {
        for (uint32_t i = 0; i < w.cwnd; i++)
            aoe_cwnd_ack(&w);
        aoe_cwnd_overtaken(&w, w.epoch);
    }
    CHECK(w.cwnd >= 8);
    // small windows still shrink, to one at least
    aoe_cwnd_init(&w, 16);
    CHECK(w.cwnd == 2);
    CHECK(aoe_cwnd_overtaken(&w, w.epoch));
    CHECK(w.cwnd == 1);
    CHECK(aoe_cwnd_overtaken(&w, w.epoch));
    CHECK(w.cwnd == 1);
    // a timeout still halves
    for (int i = 0; i < 200; i++)
        aoe_cwnd_ack(&w);
    CHECK(aoe_cwnd_loss(&w, w.epoch));
    CHECK(w.cwnd == 8);
}

TEST_CASE("flow: the window never exceeds the cap nor drops below one")
{
    aoe_cwnd w;
    aoe_cwnd_init(&w, 16);
    for (int i = 0; i < 1000; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 16);
    for (int i = 0; i < 10; i++)
        aoe_cwnd_loss(&w, w.epoch);
    CHECK(w.cwnd == 1);
    aoe_cwnd_set_cap(&w, 4);
    for (int i = 0; i < 1000; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 4);
    aoe_cwnd_set_cap(&w, 2);
    CHECK(w.cwnd == 2);
}

TEST_CASE("flow: a buffer count below 2 works with a window of 1")
{
    aoe_cwnd w;
    aoe_cwnd_init(&w, 1);
    CHECK(w.cwnd == 1);
    for (int i = 0; i < 10; i++)
        aoe_cwnd_ack(&w);
    CHECK(w.cwnd == 1);
    aoe_cwnd_loss(&w, w.epoch);
    CHECK(w.cwnd == 1);
    aoe_cwnd_init(&w, 0);
    CHECK(w.cwnd == 1);
    CHECK(w.cap == 1);
}

TEST_CASE("flow: a spurious timeout raises the RTO floor, which decays")
{
    aoe_rtt r;
    aoe_rtt_init(&r);
    for (int i = 0; i < 100; i++)
        aoe_rtt_sample(&r, 1000);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MIN_US);
    aoe_rtt_backoff(&r);
    aoe_rtt_spurious(&r, 100000);  // the answer came after 100 ms
    CHECK(r.backoff == 0);
    CHECK(aoe_rtt_rto(&r) == 150000);
    for (int i = 0; i < 256; i++)
        aoe_rtt_sample(&r, 1000);
    CHECK(aoe_rtt_rto(&r) < 150000);
    CHECK(aoe_rtt_rto(&r) > AOE_RTO_MIN_US);
    for (int i = 0; i < 5000; i++)
        aoe_rtt_sample(&r, 1000);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MIN_US);
    aoe_rtt_spurious(&r, 10000000);
    CHECK(aoe_rtt_rto(&r) == AOE_RTO_MAX_US);
}

TEST_CASE("flow: a burst of timeouts is one event")
{
    aoe_timeouts to;
    aoe_timeouts_init(&to);
    CHECK(to.in_row == 0);
    // frames 1..8 in flight, the path has sent 8: all time out together
    CHECK(aoe_timeouts_add(&to, 1, 8));
    for (uint32_t seq = 2; seq <= 8; seq++)
        CHECK_FALSE(aoe_timeouts_add(&to, seq, 8));
    CHECK(to.in_row == 1);
    // a frame sent after the event began (a retransmission) times out too
    CHECK(aoe_timeouts_add(&to, 9, 9));
    CHECK(to.in_row == 2);
    // an answer ends the run, not the burst: an older frame adds nothing
    aoe_timeouts_answered(&to);
    CHECK(to.in_row == 0);
    CHECK_FALSE(aoe_timeouts_add(&to, 9, 12));
    CHECK(to.in_row == 0);
    CHECK(aoe_timeouts_add(&to, 10, 12));
    CHECK(to.in_row == 1);
}

TEST_CASE("flow: timeout events across the sequence wrap")
{
    aoe_timeouts to;
    aoe_timeouts_init(&to);
    CHECK(aoe_timeouts_add(&to, 0xfffffffeu, 0xffffffffu));
    CHECK_FALSE(aoe_timeouts_add(&to, 0xffffffffu, 2));
    CHECK(aoe_timeouts_add(&to, 0, 2));
    CHECK_FALSE(aoe_timeouts_add(&to, 1, 3));
    CHECK(aoe_timeouts_add(&to, 3, 3));
    CHECK(to.in_row == 3);
}

TEST_CASE("flow: a target port takes its buffer count over all paths")
{
    CHECK(aoe_port_room(0, 16));
    CHECK(aoe_port_room(15, 16));
    CHECK_FALSE(aoe_port_room(16, 16));
    CHECK_FALSE(aoe_port_room(17, 16));
    // a buffer count of 0 still lets one frame through
    CHECK(aoe_port_room(0, 0));
    CHECK_FALSE(aoe_port_room(1, 0));
    CHECK_FALSE(aoe_port_room(1, 1));
}

TEST_CASE("flow: a FLUSH frame's timeout is long, doubles per try and is capped")
{
    CHECK(aoe_flush_rto(40000, 0) == AOE_FLUSH_RTO_MIN_US);
    CHECK(aoe_flush_rto(AOE_RTO_MAX_US, 0) == 4 * AOE_RTO_MAX_US);
    CHECK(aoe_flush_rto(40000, 1) == 2 * AOE_FLUSH_RTO_MIN_US);
    CHECK(aoe_flush_rto(40000, 2) == 4 * AOE_FLUSH_RTO_MIN_US);
    CHECK(aoe_flush_rto(40000, 3) == AOE_FLUSH_RTO_MAX_US);
    CHECK(aoe_flush_rto(AOE_RTO_MAX_US, 255) == AOE_FLUSH_RTO_MAX_US);
    CHECK(aoe_flush_rto(0xffffffffu, 0) == AOE_FLUSH_RTO_MAX_US);
}
