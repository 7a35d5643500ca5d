#include "ddt/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace aoe::ddt {

void Histogram::merge(const Histogram& other)
{
    for (unsigned i = 0; i < kBuckets; ++i)
        buckets_[i] += other.buckets_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

uint64_t Histogram::bucket_low(unsigned idx)
{
    if (idx < kVal)
        return idx;
    unsigned group = idx / kVal;  // >= 1
    unsigned shift = group - 1;
    uint64_t base = uint64_t{1} << (shift + kBits);
    return base + (static_cast<uint64_t>(idx % kVal) << shift);
}

uint64_t Histogram::bucket_high(unsigned idx)
{
    if (idx < kVal)
        return idx;
    unsigned shift = idx / kVal - 1;
    return bucket_low(idx) + ((uint64_t{1} << shift) - 1);
}

double Histogram::percentile(double p) const
{
    if (count_ == 0)
        return 0.0;
    p = std::clamp(p, 0.0, 100.0);
    // Nearest rank: the k-th smallest sample, k = ceil(p/100 * n), at least 1.
    auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    rank = std::clamp<uint64_t>(rank, 1, count_);
    uint64_t seen = 0;
    for (unsigned i = 0; i < kBuckets; ++i) {
        seen += buckets_[i];
        if (seen >= rank) {
            double mid = (static_cast<double>(bucket_low(i)) +
                          static_cast<double>(bucket_high(i))) / 2.0;
            return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
        }
    }
    return static_cast<double>(max_);
}

}  // namespace aoe::ddt
