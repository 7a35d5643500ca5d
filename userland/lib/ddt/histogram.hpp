// aoe-ddt: completion-latency histogram, log-linear like fio's clat histogram.
//
// Values (nanoseconds) below 2^kBits are stored exactly; above, each power-of-two
// range [2^m, 2^(m+1)) is split into 2^kBits equal buckets, so a bucket is never
// wider than 1/2^kBits of its lower bound and the value reported for a percentile
// (the bucket's midpoint) is within 1/2^(kBits+1) (0.8 %) of every value in the
// bucket. Fixed size, no per-I/O storage, cheap to merge across workers.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace aoe::ddt {

class Histogram {
public:
    static constexpr unsigned kBits = 6;                  // 64 buckets per group
    static constexpr unsigned kVal = 1u << kBits;
    static constexpr unsigned kGroups = 64 - kBits + 1;   // covers all of uint64_t
    static constexpr unsigned kBuckets = kGroups * kVal;
    // Upper bound of the relative error of percentile(), as a fraction.
    static constexpr double kMaxRelError = 1.0 / (2 * kVal);

    void add(uint64_t ns)
    {
        ++buckets_[index(ns)];
        ++count_;
        sum_ += ns;
        if (ns < min_)
            min_ = ns;
        if (ns > max_)
            max_ = ns;
    }
    void merge(const Histogram& other);

    uint64_t count() const { return count_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
    // Nearest-rank percentile (p in [0, 100]): the smallest recorded value v such that
    // at least p % of the samples are <= v, approximated by its bucket's midpoint and
    // clamped to [min, max]. 0 when empty.
    double percentile(double p) const;

    static unsigned index(uint64_t ns)
    {
        if (ns < kVal)
            return static_cast<unsigned>(ns);
        unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(ns));
        unsigned shift = msb - kBits;
        return (shift + 1) * kVal + static_cast<unsigned>((ns >> shift) & (kVal - 1));
    }
    // Smallest and largest value that map to bucket idx.
    static uint64_t bucket_low(unsigned idx);
    static uint64_t bucket_high(unsigned idx);

private:
    std::array<uint64_t, kBuckets> buckets_{};
    uint64_t count_ = 0;
    uint64_t sum_ = 0;  // 2^64 ns is 584 years of summed latency
    uint64_t min_ = std::numeric_limits<uint64_t>::max();
    uint64_t max_ = 0;
};

}  // namespace aoe::ddt
