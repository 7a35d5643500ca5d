// Unit tests for aoe-ddt's log-linear latency histogram (userland/lib/ddt/histogram.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ddt/histogram.hpp"

using aoe::ddt::Histogram;

namespace {

// Exact nearest-rank percentile of sorted samples.
double exact(const std::vector<uint64_t>& sorted, double p)
{
    auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    rank = std::clamp<size_t>(rank, 1, sorted.size());
    return static_cast<double>(sorted[rank - 1]);
}

void check_against_exact(std::vector<uint64_t> v)
{
    Histogram h;
    for (auto x : v)
        h.add(x);
    std::sort(v.begin(), v.end());
    for (double p : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
        double want = exact(v, p);
        double got = h.percentile(p);
        CAPTURE(p);
        CAPTURE(want);
        CHECK(std::abs(got - want) <= want * Histogram::kMaxRelError + 0.5);
    }
    CHECK(h.min() == v.front());
    CHECK(h.max() == v.back());
    CHECK(h.count() == v.size());
}

}  // namespace

TEST_CASE("ddt histogram: bucket bounds tile the value range without gaps")
{
    for (unsigned i = 0; i + 1 < Histogram::kBuckets; ++i) {
        CAPTURE(i);
        REQUIRE(Histogram::bucket_high(i) + 1 == Histogram::bucket_low(i + 1));
        REQUIRE(Histogram::index(Histogram::bucket_low(i)) == i);
        REQUIRE(Histogram::index(Histogram::bucket_high(i)) == i);
    }
    CHECK(Histogram::index(UINT64_MAX) == Histogram::kBuckets - 1);
    // Relative width is bounded: the error bound the header promises.
    for (unsigned i = Histogram::kVal; i < Histogram::kBuckets; ++i) {
        double lo = static_cast<double>(Histogram::bucket_low(i));
        double w = static_cast<double>(Histogram::bucket_high(i)) - lo;
        REQUIRE(w / 2 <= lo * Histogram::kMaxRelError);
    }
}

TEST_CASE("ddt histogram: empty and single value")
{
    Histogram h;
    CHECK(h.count() == 0);
    CHECK(h.percentile(99) == 0);
    CHECK(h.mean() == 0);
    CHECK(h.min() == 0);
    h.add(123456789);
    CHECK(h.percentile(0) == 123456789);
    CHECK(h.percentile(50) == 123456789);  // clamped to [min, max]
    CHECK(h.percentile(100) == 123456789);
    CHECK(h.mean() == 123456789);
}

TEST_CASE("ddt histogram: uniform distribution 1..100000 ns")
{
    std::vector<uint64_t> v;
    for (uint64_t i = 1; i <= 100000; ++i)
        v.push_back(i);
    check_against_exact(v);
    Histogram h;
    for (auto x : v)
        h.add(x);
    CHECK(h.mean() == doctest::Approx(50000.5));
    CHECK(h.percentile(50) == doctest::Approx(50000).epsilon(Histogram::kMaxRelError));
    CHECK(h.percentile(99) == doctest::Approx(99000).epsilon(Histogram::kMaxRelError));
}

TEST_CASE("ddt histogram: exponential and log-normal latencies")
{
    std::mt19937_64 rng(42);
    std::exponential_distribution<double> ex(1.0 / 200000.0);  // mean 200 us
    std::vector<uint64_t> v;
    for (int i = 0; i < 200000; ++i)
        v.push_back(static_cast<uint64_t>(ex(rng)) + 1);
    check_against_exact(v);

    std::lognormal_distribution<double> ln(std::log(1e6), 1.5);  // around 1 ms, long tail
    v.clear();
    for (int i = 0; i < 200000; ++i)
        v.push_back(static_cast<uint64_t>(ln(rng)) + 1);
    check_against_exact(v);
}

TEST_CASE("ddt histogram: bimodal, the tail percentiles find the slow mode")
{
    std::vector<uint64_t> v(9900, 50000);    // 50 us
    v.insert(v.end(), 100, 20000000);         // 1 % at 20 ms
    check_against_exact(v);
    Histogram h;
    for (auto x : v)
        h.add(x);
    CHECK(h.percentile(98.9) < 51000);
    CHECK(h.percentile(99.5) > 19000000);
}

TEST_CASE("ddt histogram: merge equals adding everything to one")
{
    Histogram a, b, all;
    for (uint64_t i = 1; i < 5000; ++i) {
        (i % 3 ? a : b).add(i * 37);
        all.add(i * 37);
    }
    a.merge(b);
    CHECK(a.count() == all.count());
    CHECK(a.min() == all.min());
    CHECK(a.max() == all.max());
    CHECK(a.mean() == all.mean());
    for (double p : {1.0, 50.0, 99.0, 99.9})
        CHECK(a.percentile(p) == all.percentile(p));
}

namespace {

// fio's latency percentiles (stat.c: plat_val_to_idx, plat_idx_to_val,
// calc_clat_percentiles with FIO_IO_U_PLAT_BITS 6), written out from its
// definitions: the reference aoe-ddt's percentiles must equal.
unsigned fio_val_to_idx(uint64_t val)
{
    if (val == 0)
        return 0;
    unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(val));
    if (msb <= 6)
        return static_cast<unsigned>(val);
    unsigned error_bits = msb - 6;
    unsigned base = (error_bits + 1) << 6;
    return base + static_cast<unsigned>((val >> error_bits) & 63);
}

double fio_idx_to_val(unsigned idx)
{
    if (idx < (64u << 1))
        return idx;
    unsigned error_bits = (idx >> 6) - 1;
    double base = static_cast<double>(uint64_t{1} << (error_bits + 6));
    return base + (idx % 64 + 0.5) * static_cast<double>(uint64_t{1} << error_bits);
}

double fio_percentile(const std::vector<uint64_t>& v, double p)
{
    std::vector<uint64_t> plat(Histogram::kBuckets);
    for (auto x : v)
        ++plat[fio_val_to_idx(x)];
    uint64_t sum = 0;
    for (unsigned i = 0; i < plat.size(); ++i) {
        sum += plat[i];
        if (static_cast<long double>(sum) >= p / 100.0L * static_cast<long double>(v.size()))
            return fio_idx_to_val(i);
    }
    return 0;
}

}  // namespace

TEST_CASE("ddt histogram: percentiles are fio's (same buckets, same rank, same midpoint)")
{
    // aoe-ddt's bucket midpoint is (low + high) / 2 with high inclusive, fio's
    // low + width / 2: half a nanosecond apart. aoe-ddt also clamps to the
    // observed [min, max], which fio does not: compare away from the ends.
    std::mt19937_64 rng(17);
    std::lognormal_distribution<double> paced(std::log(20e6), 0.2);  // ~20 ms, scenario 21's row
    std::exponential_distribution<double> fast(1.0 / 150e3);         // ~150 us
    for (int dist = 0; dist < 2; ++dist) {
        std::vector<uint64_t> v;
        for (int i = 0; i < 20000; ++i)
            v.push_back(static_cast<uint64_t>(dist == 0 ? paced(rng) : fast(rng)) + 1);
        Histogram h;
        for (auto x : v)
            h.add(x);
        for (double p : {1.0, 10.0, 50.0, 90.0, 95.0, 99.0, 99.5, 99.9}) {
            CAPTURE(dist);
            CAPTURE(p);
            CHECK(std::abs(h.percentile(p) - fio_percentile(v, p)) <= 0.5);
        }
    }
}
