// aoe-ddt: the self-describing verify pattern.
//
// Every 512-byte sector written by --verify is 64 little-endian 64-bit words:
//   word 0       magic "AOEDDT01"
//   word 1       the sector's LBA (byte offset / 512 from the start of the target)
//   word 2       the run id (different for every run, so stale data is caught)
//   words 3..62  pseudo-random payload derived from LBA and run id
//   word 63      checksum over words 0..62
// A sector read back is good only if all of it matches what would have been written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aoe::ddt {

inline constexpr size_t kSector = 512;
inline constexpr uint64_t kPatternMagic = 0x3130544444454f41ull;  // "AOEDDT01"

// Fills one sector.
void pattern_fill_sector(void* sector, uint64_t lba, uint64_t run_id);
// Fills a buffer of len bytes (a multiple of 512) for the sectors starting at lba.
void pattern_fill(void* buf, size_t len, uint64_t lba, uint64_t run_id);

enum class SectorStatus { ok, bad_magic, bad_lba, bad_run_id, bad_checksum, bad_payload };

struct SectorCheck {
    SectorStatus status = SectorStatus::ok;
    uint64_t found_lba = 0;
    uint64_t found_run_id = 0;
    size_t first_bad_byte = 0;  // offset inside the sector of the first differing byte
};

// Checks one sector against what pattern_fill_sector(lba, run_id) wrote.
SectorCheck pattern_check_sector(const void* sector, uint64_t lba, uint64_t run_id);

// Checks len bytes; returns the index of the first bad sector (and its details in
// *first) or -1 when every sector is good; *bad counts all bad sectors.
long pattern_check(const void* buf, size_t len, uint64_t lba, uint64_t run_id,
                   uint64_t* bad, SectorCheck* first);

// "checksum mismatch (byte 37 differs: expected 0x1f, found 0x9e)" and the like.
std::string describe(const SectorCheck& c, const void* sector, uint64_t lba,
                     uint64_t run_id);

}  // namespace aoe::ddt
