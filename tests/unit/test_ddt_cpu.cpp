// Unit tests for aoe-ddt's CPU accounting (userland/lib/ddt/cpu.cpp).
#include <doctest/doctest.h>

#include "ddt/cpu.hpp"

using namespace aoe::ddt;

TEST_CASE("ddt cpu: /proc/stat aggregate line")
{
    auto s = parse_proc_stat("cpu  100 5 50 800 20 3 7 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n");
    REQUIRE(s);
    CHECK(s->user == 100);
    CHECK(s->nice == 5);
    CHECK(s->system == 50);
    CHECK(s->idle == 800);
    CHECK(s->iowait == 20);
    CHECK(s->irq == 3);
    CHECK(s->softirq == 7);
    CHECK(s->total() == 985);
    CHECK_FALSE(parse_proc_stat("cpu0 1 2 3 4\n"));
    CHECK_FALSE(parse_proc_stat(""));
    CHECK(read_proc_stat());
}

TEST_CASE("ddt cpu: machine percentages between two samples")
{
    ProcStat a{100, 0, 100, 1000, 0, 0, 0, 0};
    ProcStat b{200, 0, 150, 1200, 100, 10, 40, 0};  // +500 ticks in all
    auto c = system_cpu(a, b);
    CHECK(c.valid);
    CHECK(c.sys_pct == doctest::Approx(10));
    CHECK(c.iowait_pct == doctest::Approx(20));
    CHECK(c.irq_pct == doctest::Approx(2));
    CHECK(c.softirq_pct == doctest::Approx(8));
    CHECK(c.busy_pct == doctest::Approx(40));  // 100 - idle 40 - iowait 20
    CHECK_FALSE(system_cpu(b, a).valid);
}

TEST_CASE("ddt cpu: process CPU grows with work")
{
    CpuMeter m;
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < 50000000; ++i)
        x = x + i;
    auto r = m.finish(1.0);
    CHECK(r.usr_pct + r.sys_pct > 0);
}
