// Unit tests for the stale-write fence's ghost set (kmod/aoe_fence.c).
#include <doctest/doctest.h>

#include "aoe_fence.h"

namespace {
constexpr uint64_t ms = 1000000;  // ns
}

TEST_CASE("fence: the fence time is 4 RTOs, at least 1 s, at most 4 s")
{
    CHECK(aoe_fence_time_us(40000) == AOE_FENCE_MIN_US);
    CHECK(aoe_fence_time_us(400000) == 1600000);
    CHECK(aoe_fence_time_us(4000000) == AOE_FENCE_MAX_US);
    CHECK(aoe_fence_time_us(UINT32_MAX) == AOE_FENCE_MAX_US);
}

TEST_CASE("fence: an empty set blocks nothing")
{
    aoe_fence f;
    aoe_fence_init(&f);
    CHECK(aoe_fence_blocks(&f, 0, 1u << 31, 0) == 0);
}

TEST_CASE("fence: a ghost blocks overlapping ranges until it expires")
{
    aoe_fence f;
    aoe_fence_init(&f);
    REQUIRE(aoe_fence_add(&f, 100, 8, 50 * ms, false, 0, 1, 0));
    CHECK(aoe_fence_blocks(&f, 100, 8, 0) == 50 * ms);
    CHECK(aoe_fence_blocks(&f, 107, 1, 0) == 50 * ms);  // last sector
    CHECK(aoe_fence_blocks(&f, 92, 9, 0) == 50 * ms);   // ends on the first
    CHECK(aoe_fence_blocks(&f, 108, 8, 0) == 0);        // right after
    CHECK(aoe_fence_blocks(&f, 92, 8, 0) == 0);         // right before
    CHECK(aoe_fence_blocks(&f, 100, 0, 0) == 0);        // empty (a flush)
    CHECK(aoe_fence_blocks(&f, 100, 8, 50 * ms) == 0);  // expired
    aoe_fence_expire(&f, 49 * ms);
    CHECK(f.n == 1);
    aoe_fence_expire(&f, 50 * ms);
    CHECK(f.n == 0);
}

TEST_CASE("fence: the next expiry is the earliest ghost's, 0 with none")
{
    aoe_fence f;
    aoe_fence_init(&f);
    CHECK(aoe_fence_next_expiry(&f) == 0);
    aoe_fence_add(&f, 0, 8, 30 * ms, false, 0, 1, 0);
    aoe_fence_add(&f, 100, 8, 10 * ms, false, 0, 1, 0);
    aoe_fence_add(&f, 200, 8, 90 * ms, false, 0, 1, 0);
    CHECK(aoe_fence_next_expiry(&f) == 10 * ms);
    aoe_fence_expire(&f, 10 * ms);
    CHECK(aoe_fence_next_expiry(&f) == 30 * ms);
    aoe_fence_expire(&f, 90 * ms);
    CHECK(aoe_fence_next_expiry(&f) == 0);
}

TEST_CASE("fence: the latest expiry of the overlapping ghosts is returned")
{
    aoe_fence f;
    aoe_fence_init(&f);
    aoe_fence_add(&f, 0, 8, 10 * ms, false, 0, 1, 0);
    aoe_fence_add(&f, 4, 8, 30 * ms, false, 0, 1, 0);
    aoe_fence_add(&f, 100, 8, 90 * ms, false, 0, 1, 0);
    CHECK(aoe_fence_blocks(&f, 0, 16, 0) == 30 * ms);
    CHECK(aoe_fence_blocks(&f, 0, 4, 0) == 10 * ms);
    CHECK(aoe_fence_blocks(&f, 0, 4, 20 * ms) == 0);
    CHECK(aoe_fence_blocks(&f, 0, 200, 0) == 90 * ms);
}

TEST_CASE("fence: the late answer to a ghost's copy explains it, once, and lifts nothing")
{
    aoe_fence f;
    aoe_ghost g{};
    aoe_fence_init(&f);
    aoe_fence_add(&f, 0, 8, 1000 * ms, true, 0x1234, 3, 5 * ms);
    aoe_fence_add(&f, 0, 8, 1000 * ms, false, 0x5678, 3, 5 * ms);  // no tag
    CHECK_FALSE(aoe_fence_answered(&f, 0x5678, &g));
    CHECK_FALSE(aoe_fence_answered(&f, 0x9999, &g));
    REQUIRE(aoe_fence_answered(&f, 0x1234, &g));
    CHECK(g.sent_ns == 5 * ms);
    CHECK(g.ifindex == 3);
    // the ghost stays to its expiry: a twin of the answered copy may be out
    CHECK(f.n == 2);
    CHECK(aoe_fence_blocks(&f, 0, 8, 999 * ms) == 1000 * ms);
    CHECK(aoe_fence_blocks(&f, 0, 8, 1000 * ms) == 0);
    CHECK_FALSE(aoe_fence_answered(&f, 0x1234, &g));  // once: a twin's answer is a duplicate
}

TEST_CASE("fence: a full set merges a new ghost into the nearest, never loses one")
{
    aoe_fence f;
    aoe_fence_init(&f);
    for (uint32_t i = 0; i < AOE_FENCE_SLOTS; i++)
        REQUIRE(aoe_fence_add(&f, i * 1000, 8, 100 * ms, true, i, 1, 0));
    CHECK(f.n == AOE_FENCE_SLOTS);
    // next to the ghost at 5000: it widens to [5000, 5020)
    CHECK_FALSE(aoe_fence_add(&f, 5012, 8, 300 * ms, true, 77, 1, 0));
    CHECK(f.n == AOE_FENCE_SLOTS);
    CHECK(aoe_fence_blocks(&f, 5012, 8, 0) == 300 * ms);
    CHECK(aoe_fence_blocks(&f, 5008, 4, 0) == 300 * ms);  // the gap: a superset
    CHECK(aoe_fence_blocks(&f, 5000, 1, 0) == 300 * ms);
    CHECK(aoe_fence_blocks(&f, 4000, 8, 0) == 100 * ms);  // the others unchanged
    // a merged ghost has no single copy any more: its old tag no longer clears it
    aoe_ghost g{};
    CHECK_FALSE(aoe_fence_answered(&f, 5, &g));
    CHECK_FALSE(aoe_fence_answered(&f, 77, &g));
    CHECK(aoe_fence_answered(&f, 4, &g));
    CHECK(f.n == AOE_FENCE_SLOTS);
}

TEST_CASE("fence: ranges near the top of the LBA space")
{
    aoe_fence f;
    aoe_fence_init(&f);
    const uint64_t top = (1ull << 48) - 8;
    aoe_fence_add(&f, top, 8, 10 * ms, false, 0, 1, 0);
    CHECK(aoe_fence_blocks(&f, top + 7, 1, 0) == 10 * ms);
    CHECK(aoe_fence_blocks(&f, top - 1, 1, 0) == 0);
    CHECK(aoe_fence_overlap(top, 8, top + 7, 1));
    CHECK_FALSE(aoe_fence_overlap(top, 8, top + 8, 1));
    CHECK_FALSE(aoe_fence_overlap(top, 0, top, 8));
}
