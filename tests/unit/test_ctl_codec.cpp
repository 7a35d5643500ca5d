// Unit tests for the codec of Query Config sub-commands, MAC Mask List and
// Reserve/Release (kmod/aoe_codec.c), as vblade (aoe.c) frames them.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "aoe_codec.h"
#include "aoe_netlink.h"

namespace {

const uint8_t kInit[6] = {0x02, 0, 0, 0, 0, 0x01};
const uint8_t kTgt[6] = {0x02, 0, 0, 0, 0, 0x02};
const uint8_t kOther[6] = {0x02, 0, 0, 0, 0, 0x03};

// A request turned into the target's answer, as vblade's doaoe() does it.
std::vector<uint8_t> as_response(std::vector<uint8_t> f, uint8_t error = 0)
{
    std::array<uint8_t, 6> dst;
    std::memcpy(dst.data(), &f[6], 6);
    std::memcpy(&f[6], kTgt, 6);
    std::memcpy(&f[0], dst.data(), 6);
    f[14] |= AOE_FL_RESP;
    if (error) {
        f[14] |= AOE_FL_ERR;
        f[15] = error;
    }
    if (f.size() < AOE_ETH_ZLEN)
        f.resize(AOE_ETH_ZLEN);
    return f;
}

int decode(const std::vector<uint8_t>& f, aoe_frame& out)
{
    return aoe_decode_response(f.data(), f.size(), f.size(), &out);
}

}  // namespace

TEST_CASE("ctl codec: Query Config sub-commands carry the string and ccmd")
{
    std::vector<uint8_t> buf(AOE_CFG_HDR_LEN + AOE_CONFIG_MAXLEN);
    const std::string s = "hello world";
    size_t n = aoe_encode_cfg(buf.data(), buf.size(), kTgt, kInit, 7, 3, 0x80000001, AOE_CCMD_SET,
                              reinterpret_cast<const uint8_t*>(s.data()), s.size());
    REQUIRE(n == AOE_CFG_HDR_LEN + s.size());
    CHECK(buf[19] == AOE_CMD_CFG);
    CHECK(buf[29] == (0x10 | AOE_CCMD_SET));
    CHECK(aoe_get_be16(&buf[30]) == s.size());
    CHECK(std::string(buf.begin() + 32, buf.begin() + 32 + static_cast<long>(s.size())) == s);
    buf.resize(n);
    aoe_frame f{};
    auto resp = as_response(buf);  // f points into it
    REQUIRE(decode(resp, f) == 0);
    CHECK(f.cfg.ccmd == AOE_CCMD_SET);
    CHECK(f.cfg.cfglen == s.size());
    CHECK(std::memcmp(f.cfg.cfg, s.data(), s.size()) == 0);
    // error 4 (config string present) still decodes: the tag is matched
    auto err = as_response(buf, AOE_ERR_CFG_SET);
    CHECK(decode(err, f) == -AOE_DROP_ERROR);
    CHECK(f.error == AOE_ERR_CFG_SET);
    CHECK(f.cfg.cfglen == s.size());
}

TEST_CASE("ctl codec: encoders refuse what does not fit")
{
    std::vector<uint8_t> buf(AOE_CFG_HDR_LEN + AOE_CONFIG_MAXLEN + 1);
    std::vector<uint8_t> str(AOE_CONFIG_MAXLEN + 1, 'x');
    CHECK(aoe_encode_cfg(buf.data(), buf.size(), kTgt, kInit, 1, 1, 1, AOE_CCMD_SET, str.data(),
                         str.size()) == 0);
    CHECK(aoe_encode_cfg(buf.data(), buf.size(), kTgt, kInit, 1, 1, 1, AOE_CCMD_SET, str.data(),
                         AOE_CONFIG_MAXLEN) == AOE_CFG_HDR_LEN + AOE_CONFIG_MAXLEN);
    CHECK(aoe_encode_cfg(buf.data(), 40, kTgt, kInit, 1, 1, 1, AOE_CCMD_SET, str.data(), 9) == 0);
    CHECK(aoe_encode_cfg(buf.data(), buf.size(), kTgt, kInit, 1, 1, 1, 5, str.data(), 1) == 0);
    CHECK(aoe_encode_mask(buf.data(), buf.size(), kTgt, kInit, 1, 1, 1, 2, nullptr, 0) == 0);
    CHECK(aoe_encode_resv(buf.data(), buf.size(), kTgt, kInit, 1, 1, 1, 3, nullptr, 0) == 0);
    std::vector<uint8_t> big(256 * 8);
    std::vector<uint8_t> out(4096);
    CHECK(aoe_encode_mask(out.data(), out.size(), kTgt, kInit, 1, 1, 1, AOE_MCMD_EDIT, big.data(),
                          256) == 0);
    CHECK(aoe_encode_resv(out.data(), out.size(), kTgt, kInit, 1, 1, 1, AOE_RCMD_SET, big.data(),
                          256) == 0);
}

TEST_CASE("ctl codec: frame length against the MTU")
{
    CHECK(aoe_ctl_frame_len(AOE_CMD_CFG, 1024) == 1056);
    CHECK(aoe_ctl_frame_len(AOE_CMD_MASK, 8) == 36);
    CHECK(aoe_ctl_frame_len(AOE_CMD_RESERVE, 6) == 32);
    CHECK(aoe_ctl_frame_len(0, 6) == 0);
    // 248 MACs are the most a 1500-byte MTU carries: 26 + 1488 - 14 = 1500
    CHECK(aoe_ctl_fits_mtu(aoe_ctl_frame_len(AOE_CMD_RESERVE, 248 * 6), 1500));
    CHECK_FALSE(aoe_ctl_fits_mtu(aoe_ctl_frame_len(AOE_CMD_RESERVE, 249 * 6), 1500));
    CHECK_FALSE(aoe_ctl_fits_mtu(aoe_ctl_frame_len(AOE_CMD_CFG, 1024), 1000));
}

TEST_CASE("ctl codec: MAC Mask List edit and its answers")
{
    std::vector<uint8_t> dirs(2 * AOE_MASK_DIR_LEN);
    aoe_mask_dir(&dirs[0], AOE_DCMD_ADD, kInit);
    aoe_mask_dir(&dirs[8], AOE_DCMD_DEL, kOther);
    CHECK(dirs[1] == AOE_DCMD_ADD);
    CHECK(std::memcmp(&dirs[2], kInit, 6) == 0);
    std::vector<uint8_t> buf(64);
    size_t n = aoe_encode_mask(buf.data(), buf.size(), kTgt, kInit, 1, 2, 9, AOE_MCMD_EDIT,
                               dirs.data(), 2);
    REQUIRE(n == AOE_MASK_HDR_LEN + 16);
    CHECK(buf[19] == AOE_CMD_MASK);
    CHECK(buf[25] == AOE_MCMD_EDIT);
    CHECK(buf[27] == 2);
    buf.resize(n);

    SUBCASE("a list that fits decodes")
    {
        aoe_frame f{};
        auto resp = as_response(buf);
        REQUIRE(decode(resp, f) == 0);
        CHECK(f.mask.mcmd == AOE_MCMD_EDIT);
        CHECK(f.mask.count == 2);
        REQUIRE(f.mask.dirs != nullptr);
        CHECK(std::memcmp(f.mask.dirs + 2, kInit, 6) == 0);
    }
    SUBCASE("a count beyond the frame is refused")
    {
        auto r = as_response(buf);
        r[27] = 40;  // 320 bytes promised, 60 there
        aoe_frame f{};
        CHECK(decode(r, f) == -AOE_DROP_BAD_LENGTH);
    }
    SUBCASE("mask list full: the count is where it stopped, no list")
    {
        auto r = as_response(std::vector<uint8_t>(buf.begin(), buf.begin() + AOE_MASK_HDR_LEN));
        r[26] = AOE_MERR_FULL;
        r[27] = 1;
        aoe_frame f{};
        REQUIRE(decode(r, f) == 0);
        CHECK(f.mask.merror == AOE_MERR_FULL);
        CHECK(f.mask.count == 1);
        CHECK(f.mask.dirs == nullptr);
        CHECK(std::string(aoe_merror_text(f.mask.merror)) == "mask list full");
    }
    SUBCASE("too short for the argument")
    {
        auto r = as_response(buf);
        aoe_frame f{};
        CHECK(aoe_decode_response(r.data(), 27, 27, &f) == -AOE_DROP_SHORT);
    }
}

TEST_CASE("ctl codec: Reserve/Release set and read")
{
    std::vector<uint8_t> macs(12);
    std::memcpy(&macs[0], kInit, 6);
    std::memcpy(&macs[6], kOther, 6);
    std::vector<uint8_t> buf(64);
    size_t n = aoe_encode_resv(buf.data(), buf.size(), kTgt, kInit, 1, 2, 9, AOE_RCMD_SET,
                               macs.data(), 2);
    REQUIRE(n == AOE_RESV_HDR_LEN + 12);
    CHECK(buf[19] == AOE_CMD_RESERVE);
    CHECK(buf[24] == AOE_RCMD_SET);
    CHECK(buf[25] == 2);
    buf.resize(n);
    aoe_frame f{};
    auto resp = as_response(buf);
    REQUIRE(decode(resp, f) == 0);
    CHECK(f.resv.count == 2);
    REQUIRE(f.resv.macs != nullptr);
    CHECK(std::memcmp(f.resv.macs + 6, kOther, 6) == 0);

    auto r = as_response(buf);
    r[25] = 200;  // 1200 bytes promised
    CHECK(decode(r, f) == -AOE_DROP_BAD_LENGTH);

    // error 6 from a target reserved by another: no list, tag still matched
    auto e = as_response(buf, AOE_ERR_RESERVED);
    e[25] = 200;
    CHECK(decode(e, f) == -AOE_DROP_ERROR);
    CHECK(f.resv.macs == nullptr);
    CHECK(f.tag == 9);
    CHECK(std::string(aoe_error_text(AOE_ERR_RESERVED)) == "target reserved");
    CHECK(std::string(aoe_error_text(77)) == "unknown error");
}
