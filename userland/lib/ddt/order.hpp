// aoe-ddt: the order in which a job visits its blocks.
//
// Sequential: 0, 1, 2, ... Random: a keyed pseudo-random permutation of 0..n-1 (a
// Feistel network over the next power of four, cycle-walking back into range), so
// every block is visited exactly once per pass, like fio's random map, with O(1)
// memory and no repeats.
#pragma once

#include <cstdint>

namespace aoe::ddt {

class BlockOrder {
public:
    BlockOrder(uint64_t n, bool random, uint64_t seed);
    uint64_t operator()(uint64_t i) const { return random_ ? permute(i) : i; }
    uint64_t size() const { return n_; }

private:
    uint64_t permute(uint64_t i) const;
    uint64_t feistel(uint64_t x) const;

    uint64_t n_;
    bool random_;
    unsigned half_bits_ = 1;
    uint64_t half_mask_ = 1;
    uint64_t keys_[4] = {};
};

}  // namespace aoe::ddt
