// Unit tests for aoe-ddt's block order (userland/lib/ddt/order.cpp).
#include <doctest/doctest.h>

#include <vector>

#include "ddt/order.hpp"

using aoe::ddt::BlockOrder;

TEST_CASE("ddt order: sequential is the identity")
{
    BlockOrder o(10, false, 1);
    for (uint64_t i = 0; i < 10; ++i)
        CHECK(o(i) == i);
}

TEST_CASE("ddt order: random visits every block exactly once")
{
    for (uint64_t n : {1ull, 2ull, 3ull, 17ull, 1000ull, 4096ull, 65537ull}) {
        BlockOrder o(n, true, n * 7 + 3);
        std::vector<bool> seen(n);
        uint64_t in_place = 0;
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t b = o(i);
            REQUIRE(b < n);
            REQUIRE_FALSE(seen[b]);
            seen[b] = true;
            in_place += b == i;
        }
        if (n >= 1000)
            CHECK(in_place < n / 50);  // actually shuffled
    }
    // Different seeds, different orders.
    BlockOrder a(1000, true, 1), b(1000, true, 2);
    int same = 0;
    for (uint64_t i = 0; i < 1000; ++i)
        same += a(i) == b(i);
    CHECK(same < 20);
}
