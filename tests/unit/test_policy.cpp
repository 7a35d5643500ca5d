// Unit tests for the failure policy per target (kmod/aoe_policy.c): value
// checks, effective values, the fast-fail clock (wrap-safe ticks) and the
// refusal of new I/O while failing.
#include <doctest/doctest.h>

#include <climits>
#include <string>

#include "aoe_policy.h"

TEST_CASE("policy: values are checked as SET_TARGET takes them")
{
    uint32_t v;
    CHECK(aoe_policy_check(nullptr, nullptr) == AOE_POLICY_OK);
    v = 0;
    CHECK(aoe_policy_check(&v, nullptr) == AOE_POLICY_BAD_DEADSECS);
    CHECK(aoe_policy_check(nullptr, &v) == AOE_POLICY_OK);  // fast-fail off
    v = 1;
    CHECK(aoe_policy_check(&v, &v) == AOE_POLICY_OK);
    v = AOE_POLICY_SECS_MAX;
    CHECK(aoe_policy_check(&v, &v) == AOE_POLICY_OK);
    v = AOE_POLICY_SECS_MAX + 1;
    CHECK(aoe_policy_check(&v, nullptr) == AOE_POLICY_BAD_DEADSECS);
    CHECK(aoe_policy_check(nullptr, &v) == AOE_POLICY_BAD_FAST_FAIL);
    v = AOE_POLICY_DEFAULT;
    CHECK(aoe_policy_check(&v, &v) == AOE_POLICY_OK);
    v = AOE_POLICY_DEFAULT - 1;
    CHECK(aoe_policy_check(&v, nullptr) == AOE_POLICY_BAD_DEADSECS);
    uint32_t good = 5, bad = 0;
    // deadsecs is reported first when both are wrong
    CHECK(aoe_policy_check(&bad, &v) == AOE_POLICY_BAD_DEADSECS);
    CHECK(aoe_policy_check(&good, &v) == AOE_POLICY_BAD_FAST_FAIL);
    CHECK(std::string(aoe_policy_strerror(AOE_POLICY_BAD_DEADSECS)) ==
          "deadsecs must be 1..86400 seconds, or default");
    CHECK(std::string(aoe_policy_strerror(AOE_POLICY_BAD_FAST_FAIL)) ==
          "fast-fail must be 0 (off) or 1..86400 seconds, or default");
}

TEST_CASE("policy: effective values, own or the module's")
{
    aoe_policy p{};
    CHECK(aoe_policy_deadsecs(&p, 180) == 180);
    CHECK(aoe_policy_fast_fail(&p, 0) == 0);
    CHECK(aoe_policy_fast_fail(&p, 7) == 7);
    // a module value out of range is clamped, never 0 deadsecs
    CHECK(aoe_policy_deadsecs(&p, 0) == 1);
    CHECK(aoe_policy_deadsecs(&p, -5) == 1);
    CHECK(aoe_policy_deadsecs(&p, INT_MAX) == AOE_POLICY_SECS_MAX);
    CHECK(aoe_policy_fast_fail(&p, -1) == 0);

    uint32_t d = 10, f = 3;
    aoe_policy_apply(&p, &d, &f, 0);
    CHECK(aoe_policy_deadsecs(&p, 180) == 10);
    CHECK(aoe_policy_deadsecs_of(p.deadsecs, 180) == 10);
    CHECK(aoe_policy_fast_fail(&p, 0) == 3);
    // own fast-fail 0 means off even when the module has one
    f = 0;
    aoe_policy_apply(&p, nullptr, &f, 9);
    CHECK(p.fast_fail_set);
    CHECK(aoe_policy_fast_fail(&p, 9) == 0);
    CHECK(aoe_policy_deadsecs(&p, 180) == 10);  // untouched
    d = f = AOE_POLICY_DEFAULT;
    aoe_policy_apply(&p, &d, &f, 9);
    CHECK(p.deadsecs == 0);
    CHECK_FALSE(p.fast_fail_set);
    CHECK(aoe_policy_deadsecs(&p, 180) == 180);
    CHECK(aoe_policy_fast_fail(&p, 9) == 9);
}

TEST_CASE("policy: the fast-fail clock")
{
    const unsigned long hz = 250;
    aoe_policy p{};
    unsigned long now = 1001;  // odd: the clock keeps it as is (0 means none)
    // off: never fires, keeps no clock
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now, hz, 0));
    CHECK(p.nopath_since == 0);
    // a path usable, or nothing pending: no clock
    CHECK_FALSE(aoe_policy_tick(&p, true, false, now, hz, 2));
    CHECK_FALSE(aoe_policy_tick(&p, false, true, now, hz, 2));
    CHECK(p.nopath_since == 0);
    // I/O and no path: starts, fires after 2 s, not before
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now, hz, 2));
    CHECK(p.nopath_since != 0);
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now + 2 * hz, hz, 2));
    CHECK(aoe_policy_tick(&p, true, true, now + 2 * hz + 1, hz, 2));
    CHECK(p.failing);
    CHECK(p.fires == 1);
    CHECK(p.failed_at == now + 2 * hz + 1);
    // turned off (e.g. aoe_fast_fail set to 0) ends failing
    CHECK_FALSE(aoe_policy_tick(&p, false, true, now + 3 * hz, hz, 0));
    CHECK_FALSE(p.failing);
    p.failing = true;
    // a path back ends failing and the clock
    CHECK_FALSE(aoe_policy_tick(&p, false, false, now + 3 * hz, hz, 2));
    CHECK_FALSE(p.failing);
    // a path back in between restarts the clock
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now, hz, 2));
    CHECK_FALSE(aoe_policy_tick(&p, true, false, now + hz, hz, 2));
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now + 2 * hz, hz, 2));
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now + 4 * hz, hz, 2));
    CHECK(aoe_policy_tick(&p, true, true, now + 4 * hz + 1, hz, 2));
    CHECK(p.fires == 2);
}

TEST_CASE("policy: the clock across a tick counter wrap, the largest time")
{
    const unsigned long hz = 1000;
    aoe_policy p{};
    unsigned long now = ULONG_MAX - hz / 2;
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now, hz, 1));
    CHECK_FALSE(aoe_policy_tick(&p, true, true, now + hz, hz, 1));  // wrapped
    CHECK(aoe_policy_tick(&p, true, true, now + hz + 2, hz, 1));
    aoe_policy q{};
    CHECK_FALSE(aoe_policy_tick(&q, true, true, 10, hz, AOE_POLICY_SECS_MAX));
    CHECK_FALSE(aoe_policy_tick(&q, true, true, 10 + AOE_POLICY_SECS_MAX * hz, hz,
                                AOE_POLICY_SECS_MAX));
    CHECK(aoe_policy_tick(&q, true, true, 12 + AOE_POLICY_SECS_MAX * hz, hz,
                          AOE_POLICY_SECS_MAX));
}

TEST_CASE("policy: new I/O while failing")
{
    aoe_policy p{};
    CHECK_FALSE(aoe_policy_refuse(&p, true, 0));  // not failing
    p.failing = true;
    p.failed_at = 500;
    CHECK(aoe_policy_refuse(&p, true, 400));    // no answer since
    CHECK(aoe_policy_refuse(&p, true, 500));
    CHECK(p.failing);
    CHECK_FALSE(aoe_policy_refuse(&p, true, 501));  // the target answered
    CHECK_FALSE(p.failing);
    p.failing = true;
    CHECK_FALSE(aoe_policy_refuse(&p, false, 0));  // a usable path
    CHECK_FALSE(p.failing);
    // turning fast-fail off ends failing
    p.failing = true;
    uint32_t off = 0;
    aoe_policy_apply(&p, nullptr, &off, 5);
    CHECK_FALSE(p.failing);
    CHECK_FALSE(aoe_policy_refuse(&p, true, 0));
}
