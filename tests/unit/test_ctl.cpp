// Unit tests for the control tools' pure logic (userland/lib/ctl/ctl.hpp):
// arguments, mask edits, the AOE_CMD_CTL request and results, words, exit
// statuses, reserve read-back and aoe-ping's statistics.
#include <doctest/doctest.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "core/error.hpp"
#include "ctl/ctl.hpp"
#include "kernel_msg.hpp"

using namespace aoe;
using namespace aoe::ctl;

namespace {

const Mac kA{0x02, 0, 0, 0, 0, 0x0a};
const Mac kB{0x02, 0, 0, 0, 0, 0x0b};
const Mac kC{0x02, 0, 0, 0, 0, 0x0c};
const Mac kT{0x52, 0x54, 0, 0x12, 0x34, 0x56};

// An AOE_CMD_CTL_RESULT as kmod/ctl.c builds it.
kmsg::Msg result_msg(uint32_t cookie, uint32_t count, uint32_t index, uint32_t status,
                     const std::vector<Mac>& macs = {}, std::optional<std::string> cfg = {})
{
    kmsg::Msg m(AOE_CMD_CTL_RESULT);
    kmsg::ok(nla_put_u32(m.get(), AOE_A_CTL_COOKIE, cookie));
    kmsg::ok(nla_put_u16(m.get(), AOE_A_SHELF, 1));
    kmsg::ok(nla_put_u8(m.get(), AOE_A_SLOT, 2));
    kmsg::ok(nla_put_u8(m.get(), AOE_A_CTL_CMD, cfg ? AOE_CMD_CFG : AOE_CMD_RESERVE));
    kmsg::ok(nla_put_u8(m.get(), AOE_A_CTL_SUBCMD, 0));
    kmsg::ok(nla_put_u32(m.get(), AOE_A_PATH_COUNT, count));
    nlattr* n = nla_nest_start(m.get(), AOE_A_CTL_RESULT);
    kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_INDEX, index));
    kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_IFINDEX, 3));
    kmsg::ok(nla_put_string(m.get(), AOE_CTL_A_IFNAME, "a0"));
    kmsg::ok(nla_put(m.get(), AOE_CTL_A_SRC_MAC, 6, kA.data()));
    kmsg::ok(nla_put(m.get(), AOE_CTL_A_DST_MAC, 6, kT.data()));
    kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_STATUS, status));
    kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_TRIES, 2));
    if (status == AOE_CTL_STATUS_ERROR)
        kmsg::ok(nla_put_u8(m.get(), AOE_CTL_A_AOE_ERROR, AOE_ERR_RESERVED));
    if (status == AOE_CTL_STATUS_ANSWERED || status == AOE_CTL_STATUS_ERROR) {
        kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_RTT_US, 250));
        if (cfg) {
            kmsg::ok(nla_put_u16(m.get(), AOE_CTL_A_BUFCNT, 16));
            kmsg::ok(nla_put_u16(m.get(), AOE_CTL_A_FWVER, 0x4019));
            kmsg::ok(nla_put_u8(m.get(), AOE_CTL_A_MAXSECT, 2));
            kmsg::ok(nla_put_u8(m.get(), AOE_CTL_A_AOEVER, 1));
            kmsg::ok(nla_put(m.get(), AOE_CTL_A_CONFIG, static_cast<int>(cfg->size()), cfg->data()));
        } else {
            std::vector<uint8_t> raw = mac_data(macs);
            kmsg::ok(nla_put_u32(m.get(), AOE_CTL_A_COUNT, static_cast<uint32_t>(macs.size())));
            kmsg::ok(nla_put(m.get(), AOE_CTL_A_MACS, static_cast<int>(raw.size()), raw.data()));
        }
    }
    kmsg::nest_end(m.get(), n);
    return m;
}

}  // namespace

TEST_CASE("ctl: MAC arguments")
{
    CHECK(parse_mac("52:54:00:12:34:56") == kT);
    CHECK(parse_mac("52-54-00-12-34-56") == kT);
    CHECK(parse_mac("525400123456") == kT);
    CHECK_THROWS_AS(parse_mac("52:54:00:12:34"), UsageError);
    CHECK_THROWS_AS(parse_mac("zz:54:00:12:34:56"), UsageError);
    CHECK_THROWS_AS(parse_mac("01:00:5e:00:00:01"), UsageError);  // multicast
    CHECK_THROWS_AS(parse_mac("00:00:00:00:00:00"), UsageError);
    CHECK(config_data("abc") == std::vector<uint8_t>{'a', 'b', 'c'});
    CHECK_THROWS_AS(config_data(std::string(1025, 'x')), UsageError);
    CHECK(config_data(std::string(1024, 'x')).size() == 1024);
    CHECK_THROWS_AS(mac_data(std::vector<Mac>(256, kA)), UsageError);
}

TEST_CASE("ctl: --set turns one mask list into another")
{
    auto e = mask_set_edits({kA, kB}, {kB, kC, kC});
    REQUIRE(e.size() == 2);
    CHECK(e[0] == Edit{AOE_DCMD_DEL, kA});
    CHECK(e[1] == Edit{AOE_DCMD_ADD, kC});
    CHECK(mask_set_edits({kA}, {kA}).empty());
    auto adds = mask_set_edits({}, {kA, kB});
    REQUIRE(adds.size() == 2);
    CHECK(adds[0].first == AOE_DCMD_ADD);
    auto d = mask_directives(e);
    REQUIRE(d.size() == 16);
    CHECK(d[0] == 0);
    CHECK(d[1] == AOE_DCMD_DEL);
    CHECK(Mac{d[2], d[3], d[4], d[5], d[6], d[7]} == kA);
    CHECK(d[9] == AOE_DCMD_ADD);
    CHECK_NOTHROW(check_edits(std::vector<Edit>(185, {AOE_DCMD_ADD, kA})));
    CHECK_THROWS_AS(check_edits(std::vector<Edit>(186, {AOE_DCMD_ADD, kA})), UsageError);
}

TEST_CASE("ctl: the AOE_CMD_CTL request carries what the uapi says")
{
    Request req;
    req.shelf = 7;
    req.slot = 9;
    req.cmd = AOE_CMD_RESERVE;
    req.sub = AOE_RCMD_SET;
    req.data = mac_data({kA, kB});
    req.timeout = std::chrono::milliseconds(50);  // clamped to the kernel's minimum
    CHECK(req.change());
    nl::MsgPtr m = build_ctl(0x1a, req, 0xdeadbeef);
    nlattr* tb[AOE_A_MAX + 1] = {};
    REQUIRE(genlmsg_parse(nlmsg_hdr(m.get()), 0, tb, AOE_A_MAX, nullptr) == 0);
    auto* g = static_cast<genlmsghdr*>(nlmsg_data(nlmsg_hdr(m.get())));
    CHECK(g->cmd == AOE_CMD_CTL);
    CHECK(nla_get_u16(tb[AOE_A_SHELF]) == 7);
    CHECK(nla_get_u8(tb[AOE_A_SLOT]) == 9);
    CHECK(nla_get_u8(tb[AOE_A_CTL_CMD]) == AOE_CMD_RESERVE);
    CHECK(nla_get_u8(tb[AOE_A_CTL_SUBCMD]) == AOE_RCMD_SET);
    CHECK(nla_len(tb[AOE_A_CTL_DATA]) == 12);
    CHECK(nla_get_u32(tb[AOE_A_CTL_COOKIE]) == 0xdeadbeef);
    CHECK(nla_get_u32(tb[AOE_A_CTL_TIMEOUT_MS]) == AOE_CTL_TIMEOUT_MS_MIN);
}

TEST_CASE("ctl: results parse, and malformed ones are refused")
{
    auto m = result_msg(5, 2, 1, AOE_CTL_STATUS_ANSWERED, {kA, kB});
    CtlMessage c = parse_ctl_message(m.hdr());
    CHECK(c.cmd == AOE_CMD_CTL_RESULT);
    CHECK(c.cookie == 5u);
    CHECK(c.count == 2u);
    REQUIRE(c.index);
    CHECK(*c.index == 1u);
    CHECK(c.answer.status == Status::answered);
    CHECK(c.answer.ifname == "a0");
    CHECK(c.answer.src == kA);
    CHECK(c.answer.dst == kT);
    CHECK(c.answer.tries == 2u);
    CHECK(c.answer.rtt_us == 250u);
    CHECK(c.answer.macs == std::vector<Mac>{kA, kB});

    auto cfg = result_msg(5, 1, 0, AOE_CTL_STATUS_ANSWERED, {}, std::string("hello"));
    CtlMessage cc = parse_ctl_message(cfg.hdr());
    CHECK(cc.answer.config == std::string("hello"));
    CHECK(cc.answer.bufcnt == 16);
    CHECK(cc.answer.fwver == 0x4019);

    // the index beyond the count
    auto bad = result_msg(5, 1, 1, AOE_CTL_STATUS_ANSWERED, {kA});
    CHECK_THROWS_AS(parse_ctl_message(bad.hdr()), ParseError);

    // a MAC list that is not whole MACs
    kmsg::Msg odd(AOE_CMD_CTL_RESULT);
    kmsg::ok(nla_put_u32(odd.get(), AOE_A_CTL_COOKIE, 1));
    kmsg::ok(nla_put_u32(odd.get(), AOE_A_PATH_COUNT, 1));
    nlattr* n = nla_nest_start(odd.get(), AOE_A_CTL_RESULT);
    kmsg::ok(nla_put_u32(odd.get(), AOE_CTL_A_INDEX, 0));
    kmsg::ok(nla_put_u32(odd.get(), AOE_CTL_A_STATUS, AOE_CTL_STATUS_ANSWERED));
    uint8_t seven[7] = {};
    kmsg::ok(nla_put(odd.get(), AOE_CTL_A_MACS, 7, seven));
    kmsg::nest_end(odd.get(), n);
    CHECK_THROWS_AS(parse_ctl_message(odd.hdr()), ParseError);

    // the doit's own reply: cookie and count only
    kmsg::Msg ack(AOE_CMD_CTL);
    kmsg::ok(nla_put_u32(ack.get(), AOE_A_CTL_COOKIE, 9));
    kmsg::ok(nla_put_u32(ack.get(), AOE_A_PATH_COUNT, 3));
    CtlMessage a = parse_ctl_message(ack.hdr());
    CHECK(a.cmd == AOE_CMD_CTL);
    CHECK(a.count == 3u);
    CHECK_FALSE(a.index);
}

TEST_CASE("ctl: words for answers")
{
    Request set;
    set.cmd = AOE_CMD_CFG;
    set.sub = AOE_CCMD_SET;
    PathAnswer a;
    a.status = Status::error;
    a.aoe_error = AOE_ERR_CFG_SET;
    CHECK(describe(set, a).find("config string present") == 0);
    CHECK_FALSE(path_ok(set, a));

    Request test = set;
    test.sub = AOE_CCMD_TEST;
    a = {};
    a.status = Status::timeout;
    CHECK(describe(test, a).find("no match") == 0);
    a.status = Status::answered;
    CHECK(describe(test, a) == "matches");
    CHECK(path_ok(test, a));

    Request edit;
    edit.cmd = AOE_CMD_MASK;
    edit.sub = AOE_MCMD_EDIT;
    a.merror = AOE_MERR_FULL;
    a.count = 2;
    CHECK(describe(edit, a) == "mask list full at directive 3");
    CHECK_FALSE(path_ok(edit, a));

    Request rsv;
    rsv.cmd = AOE_CMD_RESERVE;
    a = {};
    a.status = Status::error;
    a.aoe_error = AOE_ERR_RESERVED;
    CHECK(describe(rsv, a).find("target reserved by another initiator") == 0);
    a.status = Status::too_big;
    CHECK(describe(rsv, a).find("MTU") != std::string::npos);

    Result r;
    r.shelf = 1;
    r.slot = 2;
    r.via = "module";
    PathAnswer p;
    p.ifname = "a0";
    p.dst = kT;
    p.status = Status::answered;
    p.macs = {kA};
    p.rtt_us = 90;
    r.paths.push_back(p);
    CHECK(format_text(rsv, r) == "e1.2 a0 -> 52:54:00:12:34:56: ok reserved 02:00:00:00:00:0a (90 us)\n");
    Json j = to_json(rsv, r);
    CHECK(j["device"] == "e1.2");
    CHECK(j["command"] == "reserve read");
    CHECK(j["paths"][0]["reserved"][0] == "02:00:00:00:00:0a");
    CHECK(j["paths"][0]["ok"] == true);
}

TEST_CASE("ctl: reserve read-back per port and the exit status")
{
    Result back;
    PathAnswer p1;  // port T over a0: holds A
    p1.ifname = "a0";
    p1.dst = kT;
    p1.status = Status::answered;
    p1.macs = {kA, kB};
    PathAnswer p2 = p1;  // port T over a1: did not answer
    p2.ifname = "a1";
    p2.status = Status::timeout;
    PathAnswer p3 = p1;  // port C: another list
    p3.dst = kC;
    p3.macs = {kC};
    back.paths = {p2, p1, p3};
    auto o = reserve_outcomes(back, {kB, kA, kA});
    REQUIRE(o.size() == 2);
    CHECK(o[0].port == kT);
    CHECK(o[0].took);  // one path of the port read it back
    CHECK(o[0].ifname == "a0");
    CHECK_FALSE(o[1].took);
    CHECK(o[1].why.find("reserved by 02:00:00:00:00:0c") == 0);
    CHECK(change_exit_status({true, true}) == 0);
    CHECK(change_exit_status({true, false}) == 3);
    CHECK(change_exit_status({false}) == 1);
    CHECK(change_exit_status({}) == 1);
    // a release: the wanted list is empty
    PathAnswer r = p1;
    r.macs.clear();
    back.paths = {r};
    CHECK(reserve_outcomes(back, {})[0].took);
}

TEST_CASE("ctl: aoe-ping statistics")
{
    auto s = rtt_stats({100u, std::nullopt, 300u, 200u});
    CHECK(s.sent == 4u);
    CHECK(s.received == 3u);
    CHECK(s.min_us == 100u);
    CHECK(s.max_us == 300u);
    CHECK(*s.avg_us == doctest::Approx(200.0));
    CHECK_FALSE(rtt_stats({std::nullopt}).avg_us);

    PingReport rep;
    rep.shelf = 1;
    rep.slot = 2;
    Result r1;
    r1.via = "module";
    PathAnswer a;
    a.ifname = "a0";
    a.dst = kT;
    a.status = Status::answered;
    a.rtt_us = 100;
    a.config = "cfg";
    a.bufcnt = 16;
    r1.paths = {a};
    ping_add(rep, r1);
    // round 2: a0 lost, a new path a1 answers
    Result r2 = r1;
    r2.paths[0].status = Status::timeout;
    PathAnswer b = a;
    b.ifname = "a1";
    b.rtt_us = 50;
    r2.paths.push_back(b);
    ping_add(rep, r2);
    REQUIRE(rep.paths.size() == 2);
    CHECK(rep.probes == 2u);
    CHECK(rep.paths[0].samples.size() == 2);
    CHECK(rep.paths[1].samples == std::vector<std::optional<uint32_t>>{std::nullopt, 50u});
    CHECK(ping_exit_status(rep) == 3);
    std::string t = ping_text(rep);
    CHECK(t.find("e1.2: config \"cfg\"") == 0);
    CHECK(t.find("e1.2 a0 -> 52:54:00:12:34:56: 1/2 answered, rtt min/avg/max 100/100.0/100 us") !=
          std::string::npos);
    CHECK(t.find("no IDENTIFY answer") != std::string::npos);
    aoe_identity id{};
    id.sectors = 1024;
    id.lba48 = true;
    std::strcpy(id.model, "vblade");
    rep.id = identity_from(id);
    Json j = ping_json(rep);
    CHECK(j["identify"]["bytes"] == 1024 * 512);
    CHECK(j["identify"]["model"] == "vblade");
    CHECK(j["paths"][1]["rtt_min_us"] == 50);
    CHECK(j["paths"][0]["received"] == 1);
    PingReport none;
    CHECK(ping_exit_status(none) == 1);
}
