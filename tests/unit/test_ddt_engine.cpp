// Unit tests for aoe-ddt's engine resources (userland/lib/ddt/engine.cpp).
#include <doctest/doctest.h>

#include <cstdint>

#include "ddt/engine.hpp"

using namespace aoe::ddt;

TEST_CASE("ddt engine: aligned buffers, huge-page aligned when big enough")
{
    AlignedBuffer small(4096, 128 << 10, true);
    CHECK(reinterpret_cast<uintptr_t>(small.data()) % 4096 == 0);
    CHECK(small.size() == 128u << 10);
    CHECK(small.data()[0] == 0);
    CHECK(small.data()[small.size() - 1] == 0);
    AlignedBuffer big(4096, 8 << 20, true);
    CHECK(reinterpret_cast<uintptr_t>(big.data()) % (2 << 20) == 0);
    AlignedBuffer plain(512, 8 << 20, false);
    CHECK(reinterpret_cast<uintptr_t>(plain.data()) % 512 == 0);
}

TEST_CASE("ddt engine: io context and clock")
{
    AioContext ctx(32);
    CHECK(ctx.get() != nullptr);
    uint64_t a = now_ns();
    uint64_t b = now_ns();
    CHECK(b >= a);
    CHECK(a > 0);
}
