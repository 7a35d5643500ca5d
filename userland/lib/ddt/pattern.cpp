#include "ddt/pattern.hpp"

#include <cstring>

#include <fmt/format.h>

namespace aoe::ddt {

namespace {

constexpr size_t kWords = kSector / 8;

inline uint64_t splitmix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline uint64_t checksum(const uint64_t* w)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < kWords - 1; ++i) {
        h = (h ^ w[i]) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

inline void build(uint64_t* w, uint64_t lba, uint64_t run_id)
{
    w[0] = kPatternMagic;
    w[1] = lba;
    w[2] = run_id;
    uint64_t state = lba * 0xd1342543de82ef95ull ^ run_id;
    for (size_t i = 3; i < kWords - 1; ++i)
        w[i] = splitmix64(state);
    w[kWords - 1] = checksum(w);
}

}  // namespace

void pattern_fill_sector(void* sector, uint64_t lba, uint64_t run_id)
{
    uint64_t w[kWords];
    build(w, lba, run_id);
    std::memcpy(sector, w, kSector);
}

void pattern_fill(void* buf, size_t len, uint64_t lba, uint64_t run_id)
{
    auto* p = static_cast<unsigned char*>(buf);
    for (size_t off = 0; off + kSector <= len; off += kSector)
        pattern_fill_sector(p + off, lba++, run_id);
}

SectorCheck pattern_check_sector(const void* sector, uint64_t lba, uint64_t run_id)
{
    uint64_t got[kWords];
    std::memcpy(got, sector, kSector);
    SectorCheck c;
    c.found_lba = got[1];
    c.found_run_id = got[2];
    uint64_t want[kWords];
    build(want, lba, run_id);
    if (std::memcmp(got, want, kSector) == 0)
        return c;
    auto* g = reinterpret_cast<const unsigned char*>(got);
    auto* e = reinterpret_cast<const unsigned char*>(want);
    size_t i = 0;
    while (g[i] == e[i])
        ++i;
    c.first_bad_byte = i;
    if (got[0] != kPatternMagic)
        c.status = SectorStatus::bad_magic;
    else if (got[1] != lba)
        c.status = SectorStatus::bad_lba;
    else if (got[2] != run_id)
        c.status = SectorStatus::bad_run_id;
    else if (got[kWords - 1] != checksum(got))
        c.status = SectorStatus::bad_checksum;
    else
        c.status = SectorStatus::bad_payload;
    return c;
}

long pattern_check(const void* buf, size_t len, uint64_t lba, uint64_t run_id,
                   uint64_t* bad, SectorCheck* first)
{
    auto* p = static_cast<const unsigned char*>(buf);
    long first_idx = -1;
    for (size_t off = 0, i = 0; off + kSector <= len; off += kSector, ++i) {
        SectorCheck c = pattern_check_sector(p + off, lba + i, run_id);
        if (c.status == SectorStatus::ok)
            continue;
        ++*bad;
        if (first_idx < 0) {
            first_idx = static_cast<long>(i);
            *first = c;
        }
    }
    return first_idx;
}

std::string describe(const SectorCheck& c, const void* sector, uint64_t lba,
                     uint64_t run_id)
{
    auto* g = static_cast<const unsigned char*>(sector);
    unsigned char want[kSector];
    pattern_fill_sector(want, lba, run_id);
    std::string diff = fmt::format("byte {} differs: expected 0x{:02x}, found 0x{:02x}",
                                   c.first_bad_byte, want[c.first_bad_byte],
                                   g[c.first_bad_byte]);
    switch (c.status) {
    case SectorStatus::ok:
        return "ok";
    case SectorStatus::bad_magic: {
        std::string head;
        for (size_t i = 0; i < 16; ++i)
            head += fmt::format("{:02x}", g[i]);
        return fmt::format("no verify pattern (first 16 bytes {}; {})", head, diff);
    }
    case SectorStatus::bad_lba:
        return fmt::format("data of LBA {} found here (misdirected I/O)", c.found_lba);
    case SectorStatus::bad_run_id:
        return fmt::format("stale data from run {:#x}, expected run {:#x}", c.found_run_id,
                           run_id);
    case SectorStatus::bad_checksum:
        return fmt::format("checksum mismatch ({})", diff);
    case SectorStatus::bad_payload:
        return fmt::format("payload mismatch with a valid checksum ({})", diff);
    }
    return "unknown";
}

}  // namespace aoe::ddt
