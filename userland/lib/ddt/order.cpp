#include "ddt/order.hpp"

namespace aoe::ddt {

namespace {

uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

BlockOrder::BlockOrder(uint64_t n, bool random, uint64_t seed) : n_(n), random_(random)
{
    while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < n)
        ++half_bits_;
    half_mask_ = (uint64_t{1} << half_bits_) - 1;
    for (unsigned r = 0; r < 4; ++r)
        keys_[r] = mix(seed + 0x9e3779b97f4a7c15ull * (r + 1));
}

uint64_t BlockOrder::feistel(uint64_t x) const
{
    uint64_t l = x >> half_bits_, r = x & half_mask_;
    for (uint64_t k : keys_) {
        uint64_t nl = r;
        r = l ^ (mix(r ^ k) & half_mask_);
        l = nl;
    }
    return (l << half_bits_) | r;
}

uint64_t BlockOrder::permute(uint64_t i) const
{
    // A bijection on [0, 4^half_bits) restricted to [0, n) by cycle walking: the
    // domain is less than 4n, so this takes under 4 steps on average.
    uint64_t x = feistel(i);
    while (x >= n_)
        x = feistel(x);
    return x;
}

}  // namespace aoe::ddt
