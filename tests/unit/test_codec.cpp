// Unit tests for the portable AoE frame codec (kmod/aoe_codec.c).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "aoe_codec.h"
#include "aoe_netlink.h"

namespace {

const uint8_t kInit[6] = {0x02, 0, 0, 0, 0, 0x01};
const uint8_t kTgt[6] = {0x02, 0, 0, 0, 0, 0x02};

// A Query Config response as vblade sends it.
std::vector<uint8_t> cfg_response(uint16_t shelf, uint8_t slot, uint32_t tag,
                                  std::string_view cfg, uint16_t bufcnt = 16,
                                  uint8_t maxsect = 17)
{
    std::vector<uint8_t> f(AOE_CFG_HDR_LEN + cfg.size());
    aoe_encode_hdr(f.data(), kInit, kTgt, AOE_FL_RESP, shelf, slot, AOE_CMD_CFG, tag);
    aoe_put_be16(&f[24], bufcnt);
    aoe_put_be16(&f[26], 0x4019);
    f[28] = maxsect;
    f[29] = 0x10;
    aoe_put_be16(&f[30], static_cast<uint16_t>(cfg.size()));
    std::copy(cfg.begin(), cfg.end(), f.begin() + AOE_CFG_HDR_LEN);
    if (f.size() < AOE_ETH_ZLEN)
        f.resize(AOE_ETH_ZLEN);  // Ethernet padding
    return f;
}

int decode(const std::vector<uint8_t>& f, aoe_frame& out)
{
    return aoe_decode_response(f.data(), f.size(), f.size(), &out);
}

}  // namespace

TEST_CASE("codec: query config request round trip")
{
    std::array<uint8_t, 64> buf{};
    const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    REQUIRE(aoe_encode_qc(buf.data(), bcast, kInit, AOE_SHELF_ANY, AOE_SLOT_ANY, 0x1234) ==
            AOE_CFG_HDR_LEN);
    CHECK(buf[12] == 0x88);
    CHECK(buf[13] == 0xa2);
    CHECK(buf[14] == 0x10);  // version 1, no flags
    CHECK(buf[16] == 0xff);
    CHECK(buf[17] == 0xff);
    CHECK(buf[18] == 0xff);
    CHECK(buf[19] == AOE_CMD_CFG);
    CHECK(aoe_get_be32(&buf[20]) == 0x1234);
    // A request is not something an initiator accepts.
    aoe_frame f{};
    CHECK(aoe_decode_response(buf.data(), 60, 60, &f) == -AOE_DROP_NOT_RESPONSE);
}

TEST_CASE("codec: query config response decodes every field")
{
    auto raw = cfg_response(1, 2, 7, "hello");
    aoe_frame f{};
    REQUIRE(decode(raw, f) == 0);
    CHECK(f.version == 1);
    CHECK(f.shelf == 1);
    CHECK(f.slot == 2);
    CHECK(f.tag == 7);
    CHECK(f.cmd == AOE_CMD_CFG);
    CHECK(f.cfg.bufcnt == 16);
    CHECK(f.cfg.fwver == 0x4019);
    CHECK(f.cfg.maxsect == 17);
    CHECK(f.cfg.aoever == 1);
    CHECK(f.cfg.cfglen == 5);
    CHECK(std::string_view(reinterpret_cast<const char*>(f.cfg.cfg), 5) == "hello");
    CHECK(std::equal(f.src, f.src + 6, kTgt));
}

TEST_CASE("codec: config string at its 1024-byte limit")
{
    std::string s(AOE_CONFIG_MAXLEN, 'x');
    auto raw = cfg_response(3, 4, 1, s);
    aoe_frame f{};
    CHECK(decode(raw, f) == 0);
    CHECK(f.cfg.cfglen == AOE_CONFIG_MAXLEN);
}

TEST_CASE("codec: malformed frames are rejected with their reason")
{
    aoe_frame f{};
    auto good = cfg_response(1, 2, 7, "abc");

    SUBCASE("every length shorter than the header")
    {
        for (size_t n = 0; n < AOE_HDR_LEN; n++)
            CHECK(aoe_decode_response(good.data(), n, n, &f) == -AOE_DROP_SHORT);
    }
    SUBCASE("config header cut short")
    {
        for (size_t n = AOE_HDR_LEN; n < AOE_CFG_HDR_LEN; n++)
            CHECK(aoe_decode_response(good.data(), n, n, &f) == -AOE_DROP_SHORT);
    }
    SUBCASE("config string longer than the frame")
    {
        auto raw = good;
        aoe_put_be16(&raw[30], static_cast<uint16_t>(raw.size() - AOE_CFG_HDR_LEN + 1));
        CHECK(decode(raw, f) == -AOE_DROP_BAD_CONFIG);
    }
    SUBCASE("config string longer than 1024")
    {
        auto raw = cfg_response(1, 2, 7, std::string(1100, 'y'));
        aoe_put_be16(&raw[30], 1025);
        CHECK(decode(raw, f) == -AOE_DROP_BAD_CONFIG);
    }
    SUBCASE("every wrong version")
    {
        for (int v = 0; v < 16; v++) {
            if (v == AOE_PROTO_VERSION)
                continue;
            auto raw = good;
            raw[14] = static_cast<uint8_t>(v << 4 | AOE_FL_RESP);
            CHECK(decode(raw, f) == -AOE_DROP_VERSION);
        }
    }
    SUBCASE("every flag combination")
    {
        for (int fl = 0; fl < 16; fl++) {
            auto raw = good;
            raw[14] = static_cast<uint8_t>(0x10 | fl);
            int r = decode(raw, f);
            if (!(fl & AOE_FL_RESP))
                CHECK(r == -AOE_DROP_NOT_RESPONSE);
            else if (fl & AOE_FL_RESERVED)
                CHECK(r == -AOE_DROP_RESERVED_FLAGS);
            else if (fl & AOE_FL_ERR)
                CHECK(r == -AOE_DROP_ERROR);
            else
                CHECK(r == 0);
        }
    }
    SUBCASE("broadcast addresses and bad source MACs")
    {
        auto raw = good;
        aoe_put_be16(&raw[16], AOE_SHELF_ANY);
        CHECK(decode(raw, f) == -AOE_DROP_BAD_ADDRESS);
        raw = good;
        raw[18] = AOE_SLOT_ANY;
        CHECK(decode(raw, f) == -AOE_DROP_BAD_ADDRESS);
        raw = good;
        std::fill(raw.begin() + 6, raw.begin() + 12, 0);
        CHECK(decode(raw, f) == -AOE_DROP_BAD_ADDRESS);
        raw = good;
        raw[6] = 0x01;  // multicast bit
        CHECK(decode(raw, f) == -AOE_DROP_BAD_ADDRESS);
    }
    SUBCASE("unknown and unsolicited commands")
    {
        for (int c : {4, 0xf0, 0xff}) {  // 2 and 3: test_ctl_codec.cpp
            auto raw = good;
            raw[19] = static_cast<uint8_t>(c);
            CHECK(decode(raw, f) == -AOE_DROP_UNKNOWN_CMD);
        }
    }
    SUBCASE("wrong ethertype")
    {
        auto raw = good;
        raw[13] = 0x00;
        CHECK(decode(raw, f) == -AOE_DROP_SHORT);
    }
}

TEST_CASE("codec: ATA request and response round trip, LBA48 and LBA28")
{
    std::array<uint8_t, AOE_ATA_HDR_LEN + 1024> buf{};
    REQUIRE(aoe_encode_ata(buf.data(), kTgt, kInit, 1, 2, 0x42, ATA_CMD_READ48, false, true,
                           0x0000123456789aULL, 2) == AOE_ATA_HDR_LEN);
    CHECK(buf[24] == AOE_AFL_EXT);
    CHECK(buf[26] == 2);
    CHECK(buf[27] == ATA_CMD_READ48);
    CHECK(buf[28] == 0x9a);
    CHECK(buf[33] == 0x00);

    // turn it into a response with 1024 data bytes
    buf[14] |= AOE_FL_RESP;
    std::copy(kTgt, kTgt + 6, buf.begin() + 6);
    buf[27] = 0x40;  // DRDY
    aoe_frame f{};
    REQUIRE(aoe_decode_response(buf.data(), AOE_ATA_HDR_LEN, buf.size(), &f) == 0);
    CHECK(f.ata.lba == 0x0000123456789aULL);
    CHECK(f.ata.sectors == 2);
    CHECK(f.ata.datalen == 1024);
    CHECK(f.tag == 0x42);

    REQUIRE(aoe_encode_ata(buf.data(), kTgt, kInit, 1, 2, 0x43, ATA_CMD_WRITE28, true, false,
                           0x0abcdef, 1) == AOE_ATA_HDR_LEN);
    CHECK(buf[24] == AOE_AFL_WRITE);
    CHECK(buf[28] == 0xef);
    CHECK(buf[30] == 0xab);
    CHECK(buf[31] == (0xe0 | 0x0));  // device/head: LBA mode | bits 24..27
    CHECK(buf[32] == 0);
}

TEST_CASE("codec: ATA response shorter than the ATA header")
{
    std::array<uint8_t, AOE_ATA_HDR_LEN> buf{};
    aoe_encode_ata(buf.data(), kTgt, kInit, 1, 2, 1, ATA_CMD_READ48, false, true, 0, 1);
    buf[14] |= AOE_FL_RESP;
    std::copy(kTgt, kTgt + 6, buf.begin() + 6);
    aoe_frame f{};
    for (size_t n = AOE_HDR_LEN; n < AOE_ATA_HDR_LEN; n++)
        CHECK(aoe_decode_response(buf.data(), n, n, &f) == -AOE_DROP_SHORT);
    CHECK(aoe_decode_response(buf.data(), buf.size(), buf.size(), &f) == 0);
    CHECK(f.ata.datalen == 0);
}

TEST_CASE("codec: payload from MTU")
{
    CHECK(aoe_payload_for_mtu(1500, 255, 0) == 1024);
    CHECK(aoe_payload_for_mtu(9000, 255, 0) == 8704);
    CHECK(aoe_payload_for_mtu(4200, 255, 0) == 4096);
    CHECK(aoe_payload_for_mtu(9000, 17, 0) == 8704);
    CHECK(aoe_payload_for_mtu(9000, 4, 0) == 2048);
    CHECK(aoe_payload_for_mtu(9000, 0, 0) == 1024);  // 0 means 2
    CHECK(aoe_payload_for_mtu(9000, 255, 8) == 4096);
    CHECK(aoe_payload_for_mtu(547, 255, 0) == 0);
    CHECK(aoe_payload_for_mtu(548, 255, 0) == 512);
    CHECK(aoe_payload_for_mtu(0, 255, 0) == 0);
    // an up path's sector count only goes down on an unverified answer
    CHECK(aoe_maxsect_sectors(0) == 2);
    CHECK(aoe_maxsect_sectors(1) == 1);
    CHECK(aoe_maxsect_sectors(17) == 17);
    CHECK(aoe_maxsect_sectors(0) > aoe_maxsect_sectors(1));
}

TEST_CASE("codec: device names")
{
    uint16_t s = 0;
    uint8_t l = 0;
    CHECK(aoe_parse_device("e1.2", &s, &l) == 0);
    CHECK((s == 1 && l == 2));
    CHECK(aoe_parse_device("65534.254", &s, &l) == 0);
    CHECK((s == 65534 && l == 254));
    for (const char* bad : {"", "e", "e1", "e1.", "e.2", "e65535.0", "e1.255", "e1.2x", "x1.2",
                            "e1.2.3", "e-1.2"})
        CHECK_MESSAGE(aoe_parse_device(bad, &s, &l) == -1, bad);
}

TEST_CASE("codec: kernel tags are the 31 random bits below the user bit")
{
    CHECK(aoe_tag_from_random(0) == 0u);
    CHECK(aoe_tag_from_random(0xffffffffu) == 0x7fffffffu);
    CHECK(aoe_tag_from_random(0x80000001u) == 1u);
    CHECK(aoe_tag_from_random(0x12345678u) == 0x12345678u);
    // every bit but bit 31 passes through: no counter, nothing predictable
    for (int b = 0; b < 32; b++) {
        uint32_t t = aoe_tag_from_random(1u << b);
        CHECK_FALSE(aoe_tag_is_user(t));
        CHECK(t == (b == 31 ? 0u : 1u << b));
    }
}

namespace {
// A keyed round function for the tests (the module's is SipHash).
uint16_t mix_round(const void *key, uint32_t in)
{
    uint64_t x = (in ^ *static_cast<const uint64_t *>(key)) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return static_cast<uint16_t>(x >> 40);
}
}  // namespace

TEST_CASE("codec: tags are a keyed permutation of transmission numbers")
{
    const uint64_t key = 0x0123456789abcdefull, other = 0xfedcba9876543210ull;
    // 2^18 consecutive numbers, across the 2^31 and 2^32 wraps: all distinct
    // kernel tags (a late answer is never taken for a newer transmission's)
    for (uint32_t start : {0u, 0x7ffe0000u, 0xfffe0000u}) {
        std::unordered_set<uint32_t> seen;
        for (uint32_t i = 0; i < (1u << 18); i++) {
            uint32_t t = aoe_tag_permute(start + i, mix_round, &key);
            REQUIRE_FALSE(aoe_tag_is_user(t));
            REQUIRE(seen.insert(t).second);
        }
    }
    // the number's bit 31 is not used: the sequence repeats after 2^31
    CHECK(aoe_tag_permute(5, mix_round, &key) == aoe_tag_permute(0x80000005u, mix_round, &key));
    // consecutive numbers do not give neighbouring tags, another key
    // another sequence
    int near = 0, same = 0;
    for (uint32_t n = 0; n < 1000; n++) {
        uint32_t a = aoe_tag_permute(n, mix_round, &key);
        uint32_t b = aoe_tag_permute(n + 1, mix_round, &key);
        near += (a > b ? a - b : b - a) < 1024;
        same += a == aoe_tag_permute(n, mix_round, &other);
    }
    CHECK(near < 5);
    CHECK(same < 5);
    // the Feistel pass alone is a bijection: distinct on a sample of inputs
    std::unordered_set<uint32_t> img;
    for (uint32_t x = 0; x < (1u << 16); x++)
        REQUIRE(img.insert(aoe_tag_feistel(x * 16411u, mix_round, &key)).second);
}

TEST_CASE("codec: IDENTIFY parsing")
{
    std::array<uint8_t, 512> id{};
    auto put_word = [&](int w, uint16_t v) {
        id[2 * w] = v & 0xff;
        id[2 * w + 1] = v >> 8;
    };
    auto put_str = [&](int w, std::string_view s, int nwords) {
        std::string p(s);
        p.resize(2 * nwords, ' ');
        for (int i = 0; i < nwords; i++) {
            id[2 * (w + i)] = static_cast<uint8_t>(p[2 * i + 1]);
            id[2 * (w + i) + 1] = static_cast<uint8_t>(p[2 * i]);
        }
    };
    put_str(27, "vblade disk", 20);
    put_str(10, "SN123", 10);
    put_str(23, "V25", 4);
    put_word(60, 0x5678);
    put_word(61, 0x0012);
    aoe_identity out{};
    REQUIRE(aoe_parse_identify(id.data(), &out) == AOE_IDENT_OK);
    CHECK_FALSE(out.lba48);
    CHECK_FALSE(out.clamped);
    CHECK(out.sectors == 0x125678);
    CHECK(std::string(out.model) == "vblade disk");
    CHECK(std::string(out.serial) == "SN123");
    CHECK(std::string(out.firmware) == "V25");

    put_word(83, 1 << 10);
    put_word(100, 0x0000);
    put_word(101, 0x0080);  // 0x800000 sectors = 4 GiB
    REQUIRE(aoe_parse_identify(id.data(), &out) == AOE_IDENT_OK);
    CHECK(out.lba48);
    CHECK(out.sectors == 0x800000);

    std::array<uint8_t, 512> empty{};
    CHECK(aoe_parse_identify(empty.data(), &out) == AOE_IDENT_NO_CAPACITY);
    CHECK(std::string(aoe_ident_err_name(AOE_IDENT_NO_CAPACITY)) == "no_capacity");
}

namespace {

// IDENTIFY data as a target builds it: 16-bit little-endian words.
struct IdentPage {
    std::array<uint8_t, 512> b{};
    void word(int w, uint16_t v)
    {
        b[2 * w] = v & 0xff;
        b[2 * w + 1] = v >> 8;
    }
    void lba28(uint32_t sectors)
    {
        word(60, sectors & 0xffff);
        word(61, sectors >> 16);
    }
    void lba48(uint64_t sectors)
    {
        word(83, 0x4400);
        word(86, 0x0400);
        for (int i = 0; i < 4; i++)
            word(100 + i, (sectors >> (16 * i)) & 0xffff);
        lba28(sectors > 0x0fffffff ? 0x0fffffff : static_cast<uint32_t>(sectors));
    }
    aoe_ident_err parse(aoe_identity& out) const { return aoe_parse_identify(b.data(), &out); }
};

}  // namespace

TEST_CASE("codec: IDENTIFY validation")
{
    aoe_identity out{};
    SUBCASE("all zeros: no capacity")
    {
        IdentPage p;
        CHECK(p.parse(out) == AOE_IDENT_NO_CAPACITY);
        CHECK(out.sectors == 0);
    }
    SUBCASE("28-bit only")
    {
        IdentPage p;
        p.word(49, 0x0200);
        p.word(83, 0x4000);
        p.lba28(40000);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.lba48);
        CHECK(out.sectors == 40000);
        CHECK_FALSE(out.clamped);
    }
    SUBCASE("28-bit: words 60-61 beyond 2^28 - 1 are clamped")
    {
        IdentPage p;
        p.lba28(0xffffffff);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.sectors == AOE_LBA28_MAX_SECTORS);
        CHECK(out.clamped);
        p.lba28(0x0fffffff);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.sectors == 0x0fffffff);
        CHECK_FALSE(out.clamped);
    }
    SUBCASE("48-bit above 2^28")
    {
        IdentPage p;
        p.lba48((1ULL << 28) + 2048);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.lba48);
        CHECK(out.sectors == (1ULL << 28) + 2048);
        CHECK_FALSE(out.clamped);
    }
    SUBCASE("48-bit: exactly 2^48 is kept, more is clamped")
    {
        IdentPage p;
        p.lba48(1ULL << 48);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.sectors == AOE_LBA48_MAX_SECTORS);
        CHECK_FALSE(out.clamped);
        p.lba48(~0ULL);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.sectors == AOE_LBA48_MAX_SECTORS);
        CHECK(out.clamped);
    }
    SUBCASE("48-bit with words 100-103 zero: no capacity, not a 28-bit fallback")
    {
        IdentPage p;
        p.lba28(5000);
        p.word(83, 0x4400);
        CHECK(p.parse(out) == AOE_IDENT_NO_CAPACITY);
        CHECK(out.lba48);
    }
    SUBCASE("garbage: all ones")
    {
        IdentPage p;
        p.b.fill(0xff);
        CHECK(p.parse(out) == AOE_IDENT_NOT_ATA);
    }
    SUBCASE("garbage: word 83 bit 15")
    {
        IdentPage p;
        p.lba48(1 << 20);
        p.word(83, 0x8400);
        CHECK(p.parse(out) == AOE_IDENT_BAD_WORD83);
        CHECK(std::string(aoe_ident_err_name(AOE_IDENT_BAD_WORD83)) == "bad_word83");
    }
    SUBCASE("garbage: aoe-target28's pseudo-random answer")
    {
        // tests/tools/aoe-target28.c --ident-ctl "garbage"
        IdentPage p;
        uint32_t x = 0x2545f491;
        for (int i = 0; i < 256; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            p.word(i, static_cast<uint16_t>(x >> 8));
        }
        CHECK(p.parse(out) != AOE_IDENT_OK);
    }
    SUBCASE("integrity word")
    {
        IdentPage p;
        p.lba48(1 << 20);
        p.b[510] = 0xa5;
        unsigned sum = 0;
        for (int i = 0; i < 511; i++)
            sum += p.b[i];
        p.b[511] = static_cast<uint8_t>(-sum);
        CHECK(p.parse(out) == AOE_IDENT_OK);
        p.b[511] ^= 1;
        CHECK(p.parse(out) == AOE_IDENT_CHECKSUM);
        CHECK(std::string(aoe_ident_err_name(AOE_IDENT_CHECKSUM)) == "checksum");
    }
}

TEST_CASE("codec: IDENTIFY cache and flush words (82-87)")
{
    aoe_identity out{};
    IdentPage p;
    p.lba48(1 << 20);
    SUBCASE("no cache words: nothing claimed, FLUSH CACHE by default")
    {
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.wcache);
        CHECK_FALSE(out.flush);
        CHECK_FALSE(out.flush_ext);
        CHECK_FALSE(out.fua);
        CHECK(aoe_identify_flush_cmd(&out) == ATA_CMD_FLUSH28);
    }
    SUBCASE("a volatile cache, FLUSH CACHE (EXT) and FUA, as aoe-fastd --volatile")
    {
        p.word(82, 0x4020);
        p.word(83, 0x4000 | 0x2000 | 0x1000 | 0x0400);
        p.word(84, 0x4040);
        p.word(85, 0x0020);
        p.word(87, 0x4040);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.wcache);
        CHECK(out.flush);
        CHECK(out.flush_ext);
        CHECK(out.fua);
        CHECK(aoe_identify_flush_cmd(&out) == ATA_CMD_FLUSH48);
    }
    SUBCASE("word 85 bit 5 without a valid word 87 is not believed")
    {
        p.word(85, 0x0020);
        p.word(87, 0x0000);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.wcache);
        p.word(87, 0xc000);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.wcache);
        p.word(87, 0x4000);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.wcache);
    }
    SUBCASE("word 84 must be valid for FUA, and FUA needs LBA48")
    {
        p.word(84, 0x0040);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.fua);
        p.word(84, 0x4040);
        REQUIRE(p.parse(out) == AOE_IDENT_OK);
        CHECK(out.fua);
        IdentPage q;
        q.word(83, 0x4000 | 0x1000);
        q.word(84, 0x4040);
        q.lba28(40000);
        REQUIRE(q.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.lba48);
        CHECK_FALSE(out.fua);
        CHECK(out.flush);
        CHECK(aoe_identify_flush_cmd(&out) == ATA_CMD_FLUSH28);
    }
    SUBCASE("FLUSH CACHE EXT needs word 83 valid, and LBA48 to be used")
    {
        IdentPage q;
        q.word(83, 0x2000 | 0x1000);	/* bit 14 clear: not a valid word */
        q.lba28(40000);
        REQUIRE(q.parse(out) == AOE_IDENT_OK);
        CHECK_FALSE(out.flush);
        CHECK_FALSE(out.flush_ext);
        q.word(83, 0x4000 | 0x2000);	/* EXT claimed, but no LBA48 */
        REQUIRE(q.parse(out) == AOE_IDENT_OK);
        CHECK(out.flush_ext);
        CHECK(aoe_identify_flush_cmd(&out) == ATA_CMD_FLUSH28);
    }
}

TEST_CASE("codec: a new identity against an existing disk")
{
    aoe_identity cur{}, next{};
    cur.lba48 = true;
    cur.sectors = (1ULL << 28) + 2048;
    next = cur;
    CHECK(aoe_identify_compare(&cur, &next) == AOE_IDENT_SAME);
    next.sectors -= 1024;
    CHECK(aoe_identify_compare(&cur, &next) == AOE_IDENT_RESIZED);
    next.sectors = cur.sectors + 1;
    CHECK(aoe_identify_compare(&cur, &next) == AOE_IDENT_RESIZED);
    next = cur;
    next.lba48 = false;
    next.sectors = AOE_LBA28_MAX_SECTORS;
    CHECK(aoe_identify_compare(&cur, &next) == AOE_IDENT_MODE_CHANGED);
    // a 28-bit disk does not turn 48-bit either, even with the same size
    CHECK(aoe_identify_compare(&next, &cur) == AOE_IDENT_MODE_CHANGED);
    aoe_identity same28 = next;
    same28.lba48 = true;
    CHECK(aoe_identify_compare(&next, &same28) == AOE_IDENT_MODE_CHANGED);
}
