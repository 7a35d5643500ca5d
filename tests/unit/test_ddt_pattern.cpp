// Unit tests for aoe-ddt's verify pattern (userland/lib/ddt/pattern.cpp).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ddt/pattern.hpp"

using namespace aoe::ddt;

TEST_CASE("ddt pattern: a sector carries magic, LBA and run id and checks clean")
{
    std::vector<unsigned char> buf(kSector * 8);
    pattern_fill(buf.data(), buf.size(), 1000, 0xabcdef);
    uint64_t w[3];
    std::memcpy(w, buf.data() + 3 * kSector, sizeof w);
    CHECK(w[0] == kPatternMagic);
    CHECK(std::memcmp(buf.data(), "AOEDDT01", 8) == 0);
    CHECK(w[1] == 1003);
    CHECK(w[2] == 0xabcdef);
    uint64_t bad = 0;
    SectorCheck first;
    CHECK(pattern_check(buf.data(), buf.size(), 1000, 0xabcdef, &bad, &first) == -1);
    CHECK(bad == 0);
    // Different sectors and different runs differ in their payload too.
    CHECK(std::memcmp(buf.data() + 64, buf.data() + kSector + 64, 256) != 0);
    std::vector<unsigned char> other(kSector);
    pattern_fill(other.data(), kSector, 1000, 0xabcdee);
    CHECK(std::memcmp(buf.data() + 64, other.data() + 64, 256) != 0);
}

TEST_CASE("ddt pattern: every single flipped bit is found, with its sector")
{
    std::vector<unsigned char> buf(kSector * 4);
    for (size_t byte = 0; byte < buf.size(); byte += 7) {
        for (int bit = 0; bit < 8; bit += 3) {
            pattern_fill(buf.data(), buf.size(), 64, 7);
            buf[byte] ^= static_cast<unsigned char>(1u << bit);
            uint64_t bad = 0;
            SectorCheck first;
            long idx = pattern_check(buf.data(), buf.size(), 64, 7, &bad, &first);
            CAPTURE(byte);
            REQUIRE(idx == static_cast<long>(byte / kSector));
            REQUIRE(bad == 1);
            REQUIRE(first.first_bad_byte == byte % kSector);
            REQUIRE(first.status != SectorStatus::ok);
        }
    }
}

TEST_CASE("ddt pattern: what was found is classified and described")
{
    std::vector<unsigned char> s(kSector);
    // Data of another LBA (misdirected write or read).
    pattern_fill_sector(s.data(), 99, 5);
    auto c = pattern_check_sector(s.data(), 100, 5);
    CHECK(c.status == SectorStatus::bad_lba);
    CHECK(c.found_lba == 99);
    CHECK(describe(c, s.data(), 100, 5).find("LBA 99") != std::string::npos);
    // Stale data of an earlier run.
    pattern_fill_sector(s.data(), 100, 4);
    c = pattern_check_sector(s.data(), 100, 5);
    CHECK(c.status == SectorStatus::bad_run_id);
    CHECK(describe(c, s.data(), 100, 5).find("stale") != std::string::npos);
    // Zeros: no pattern at all.
    std::memset(s.data(), 0, kSector);
    c = pattern_check_sector(s.data(), 100, 5);
    CHECK(c.status == SectorStatus::bad_magic);
    CHECK(describe(c, s.data(), 100, 5).find("no verify pattern") != std::string::npos);
    // A flipped payload byte breaks the checksum.
    pattern_fill_sector(s.data(), 100, 5);
    s[300] ^= 0x10;
    c = pattern_check_sector(s.data(), 100, 5);
    CHECK(c.status == SectorStatus::bad_checksum);
    CHECK(c.first_bad_byte == 300);
    CHECK(describe(c, s.data(), 100, 5).find("byte 300") != std::string::npos);
}

TEST_CASE("ddt pattern: bad sectors are all counted, the first one reported")
{
    std::vector<unsigned char> buf(kSector * 16);
    pattern_fill(buf.data(), buf.size(), 0, 1);
    std::memset(buf.data() + 5 * kSector, 0, kSector);
    std::memset(buf.data() + 9 * kSector, 0xff, 2 * kSector);
    uint64_t bad = 0;
    SectorCheck first;
    CHECK(pattern_check(buf.data(), buf.size(), 0, 1, &bad, &first) == 5);
    CHECK(bad == 3);
    CHECK(first.status == SectorStatus::bad_magic);
}
