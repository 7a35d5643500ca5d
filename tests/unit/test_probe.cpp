// Unit tests for aoe-discover --probe's pure logic (userland/lib/probe/probe.cpp):
// interface selection, grouping of answers, response matching, tags,
// advice, exit status, report and JSON.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "aoe_codec.h"
#include "core/error.hpp"
#include "probe/probe.hpp"

using namespace aoe;
using namespace aoe::probe;

namespace {

const Mac kInit = {0x02, 0, 0, 0, 0, 0x01};
const Mac kTgt = {0x02, 0, 0, 0, 0, 0x02};
const Mac kTgt2 = {0x02, 0, 0, 0, 0, 0x03};

probe::Interface iface(std::string name, uint32_t mtu, bool up = true, bool eth = true,
                bool enslaved = false, bool carrier = true)
{
    probe::Interface i;
    i.carrier = carrier;
    i.name = std::move(name);
    i.mtu = mtu;
    i.up = up;
    i.ethernet = eth;
    i.enslaved = enslaved;
    i.mac = kInit;
    return i;
}

// A Query Config response as vblade sends it.
std::vector<uint8_t> cfg_response(uint16_t shelf, uint8_t slot, uint32_t tag,
                                  std::string_view cfg = "", const Mac& src = kTgt)
{
    std::vector<uint8_t> f(AOE_CFG_HDR_LEN + cfg.size());
    aoe_encode_hdr(f.data(), kInit.data(), src.data(), AOE_FL_RESP, shelf, slot, AOE_CMD_CFG,
                   tag);
    aoe_put_be16(&f[24], 16);
    aoe_put_be16(&f[26], 0x4019);
    f[28] = 2;
    f[29] = 0x10;
    aoe_put_be16(&f[30], static_cast<uint16_t>(cfg.size()));
    std::copy(cfg.begin(), cfg.end(), f.begin() + AOE_CFG_HDR_LEN);
    if (f.size() < AOE_ETH_ZLEN)
        f.resize(AOE_ETH_ZLEN);
    return f;
}

// The answer to a read of `sectors` sectors carrying `data_sectors` of data.
std::vector<uint8_t> read_response(uint16_t shelf, uint8_t slot, uint32_t tag, uint8_t sectors,
                                   unsigned data_sectors, uint8_t status = 0x40,
                                   const Mac& src = kTgt)
{
    std::vector<uint8_t> f(AOE_ATA_HDR_LEN + data_sectors * AOE_SECTOR_SIZE);
    aoe_encode_ata(f.data(), kInit.data(), src.data(), shelf, slot, tag, ATA_CMD_READ28, false,
                   false, 0, sectors);
    aoe_encode_hdr(f.data(), kInit.data(), src.data(), AOE_FL_RESP, shelf, slot, AOE_CMD_ATA,
                   tag);
    f[27] = status;
    if (f.size() < AOE_ETH_ZLEN)
        f.resize(AOE_ETH_ZLEN);
    return f;
}

Request read_request(uint32_t tag, uint8_t sectors)
{
    Request r;
    r.tag = tag;
    r.cmd = AOE_CMD_ATA;
    r.shelf = 1;
    r.slot = 2;
    r.mac = kTgt;
    r.sectors = sectors;
    return r;
}

Match match(const std::vector<uint8_t>& f, const Request& r)
{
    aoe_frame out{};
    return match_response(f.data(), f.size(), r, out);
}

PathResult path(std::string ifname, uint32_t mtu, uint8_t maxsect, uint32_t payload,
                Outcome o = Outcome::ok, const Mac& mac = kTgt)
{
    PathResult p;
    p.ifname = std::move(ifname);
    p.mtu = mtu;
    p.mac = mac;
    p.bufcnt = 16;
    p.fwver = 0x4019;
    p.maxsect = maxsect;
    p.payload_expected = aoe_payload_for_mtu(mtu, maxsect, 0);
    p.payload = payload;
    p.outcome = o;
    return p;
}

TargetResult target(std::vector<PathResult> paths)
{
    TargetResult t;
    t.shelf = 1;
    t.slot = 2;
    t.config = "rack 4";
    t.paths = std::move(paths);
    return t;
}

std::vector<std::string> kinds(const std::vector<Advice>& a)
{
    std::vector<std::string> out;
    for (const auto& x : a)
        out.push_back(x.kind);
    return out;
}

}  // namespace

TEST_CASE("probe: interface selection")
{
    std::vector<probe::Interface> all = {iface("lo", 65536, true, false), iface("eth1", 1500),
                                  iface("eth0", 9000), iface("eth2", 1500, false),
                                  iface("port0", 1500, true, true, true)};
    SUBCASE("all up, Ethernet, not enslaved, sorted")
    {
        auto s = select_interfaces(all, {});
        REQUIRE(s.size() == 2);
        CHECK(s[0].name == "eth0");
        CHECK(s[1].name == "eth1");
    }
    SUBCASE("named ones in the given order, duplicates once, enslaved allowed")
    {
        auto s = select_interfaces(all, {"port0", "eth1", "port0"});
        REQUIRE(s.size() == 2);
        CHECK(s[0].name == "port0");
        CHECK(s[1].name == "eth1");
    }
    SUBCASE("errors say what to do")
    {
        CHECK_THROWS_WITH_AS(select_interfaces(all, {"eth9"}), "no interface eth9 (see ip link)",
                             ProbeError);
        CHECK_THROWS_WITH_AS(select_interfaces(all, {"eth2"}), "eth2 is down: ip link set eth2 up",
                             ProbeError);
        CHECK_THROWS_WITH_AS(select_interfaces(all, {"lo"}), "lo is not an Ethernet interface",
                             ProbeError);
        CHECK_THROWS_AS(select_interfaces({iface("lo", 65536, true, false)}, {}), ProbeError);
    }
    SUBCASE("up without carrier: said so, left out of the automatic choice")
    {
        auto nc = all;
        nc.push_back(iface("eth3", 1500, true, true, false, false));
        CHECK_THROWS_WITH_AS(select_interfaces(nc, {"eth3"}),
                             "eth3 is up but has no carrier (no link: check the cable, the "
                             "switch port or the other end)",
                             ProbeError);
        auto s = select_interfaces(nc, {});
        REQUIRE(s.size() == 2);
        CHECK(s[1].name == "eth1");
        CHECK_THROWS_WITH_AS(select_interfaces({iface("eth3", 1500, true, true, false, false)}, {}),
                             "no Ethernet interface has a link: eth3 is up but has no carrier "
                             "(check the cable, the switch port or the other end)",
                             ProbeError);
    }
}

TEST_CASE("probe: answers grouped into targets and paths")
{
    std::vector<probe::Interface> ifs = {iface("eth0", 9000), iface("eth1", 1500)};
    ConfigAnswer a;
    a.shelf = 1;
    a.slot = 2;
    a.mac = kTgt2;
    a.ifname = "eth1";
    a.maxsect = 17;
    a.config = "first";
    ConfigAnswer b = a;
    b.mac = kTgt;
    b.ifname = "eth0";
    b.config = "second";
    ConfigAnswer c = a;  // duplicate of a
    ConfigAnswer d = a;
    d.shelf = 0;
    d.slot = 9;
    auto ts = group_answers({a, b, c, d}, ifs);
    REQUIRE(ts.size() == 2);
    CHECK(ts[0].device() == "e0.9");
    CHECK(ts[1].device() == "e1.2");
    CHECK(ts[1].config == "first");
    REQUIRE(ts[1].paths.size() == 2);
    CHECK(ts[1].paths[0].ifname == "eth0");
    CHECK(ts[1].paths[0].mtu == 9000);
    CHECK(ts[1].paths[0].payload_expected == 8704);
    CHECK(ts[1].paths[1].ifname == "eth1");
    CHECK(ts[1].paths[1].payload_expected == 1024);
    CHECK(ts[1].paths[1].outcome == Outcome::timed_out);
    CHECK(ts[1].paths[1].payload == 0);

    // An MTU too small for one sector is known before anything is sent.
    auto tiny = group_answers({a}, {iface("eth1", 500)});
    CHECK(tiny[0].paths[0].outcome == Outcome::no_room);
}

TEST_CASE("probe: response matching")
{
    const uint32_t tag = 0x80120005;
    SUBCASE("Query Config broadcast: any target, only our tag")
    {
        Request r;
        r.tag = tag;
        r.cmd = AOE_CMD_CFG;
        r.broadcast = true;
        aoe_frame f{};
        auto ok = cfg_response(7, 3, tag, "hello", kTgt2);
        REQUIRE(match_response(ok.data(), ok.size(), r, f) == Match::answer);
        CHECK(f.shelf == 7);
        CHECK(f.slot == 3);
        CHECK(f.cfg.bufcnt == 16);
        CHECK(std::string(reinterpret_cast<const char*>(f.cfg.cfg), f.cfg.cfglen) == "hello");
        // The kernel's tags (bit 31 clear), an unsolicited announcement
        // (tag 0), another run's tag: not ours.
        CHECK(match(cfg_response(7, 3, tag & ~AOE_TAG_USER), r) == Match::other);
        CHECK(match(cfg_response(7, 3, 0), r) == Match::other);
        CHECK(match(cfg_response(7, 3, tag + 1), r) == Match::other);
        // A request (R clear) with our tag, e.g. our own broadcast.
        std::vector<uint8_t> req(AOE_ETH_ZLEN);
        const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        aoe_encode_qc(req.data(), bcast, kInit.data(), AOE_SHELF_ANY, AOE_SLOT_ANY, tag);
        CHECK(match(req, r) == Match::other);
        // An ATA answer with the tag is not a config answer.
        CHECK(match(read_response(7, 3, tag, 1, 1), r) == Match::other);
    }
    SUBCASE("ATA read: our tag, the addressed target, the data")
    {
        auto r = read_request(tag, 2);
        CHECK(match(read_response(1, 2, tag, 2, 2), r) == Match::answer);
        CHECK(match(read_response(1, 2, tag & ~AOE_TAG_USER, 2, 2), r) == Match::other);
        CHECK(match(read_response(1, 2, tag ^ 1, 2, 2), r) == Match::other);
        CHECK(match(read_response(1, 3, tag, 2, 2), r) == Match::other);
        CHECK(match(read_response(2, 2, tag, 2, 2), r) == Match::other);
        CHECK(match(read_response(1, 2, tag, 2, 2, 0x40, kTgt2), r) == Match::other);
        CHECK(match(read_response(1, 2, tag, 2, 1), r) == Match::short_data);
        CHECK(match(read_response(1, 2, tag, 2, 2, 0x51), r) == Match::ata_error);
        auto e = read_response(1, 2, tag, 2, 0);
        e[14] |= AOE_FL_ERR;
        e[15] = 2;
        CHECK(match(e, r) == Match::ata_error);
        // Truncated garbage never matches.
        auto g = read_response(1, 2, tag, 2, 2);
        aoe_frame f{};
        CHECK(match_response(g.data(), 20, r, f) == Match::other);
    }
}

TEST_CASE("probe: tags have bit 31 set and differ")
{
    TagSource a(0x1234), b(0x1235);
    uint32_t t1 = a.next(), t2 = a.next(), u = b.next();
    CHECK(aoe_tag_is_user(t1));
    CHECK(aoe_tag_is_user(u));
    CHECK(t1 != t2);
    CHECK((t1 & 0xffff0000u) == (t2 & 0xffff0000u));
    CHECK((t1 & 0xffff0000u) != (u & 0xffff0000u));
}

TEST_CASE("probe: advice")
{
    SUBCASE("clean: MTU 1500 and 9000 paths that carry what they promise")
    {
        std::vector<TargetResult> ts = {target({path("eth0", 1500, 2, 1024)})};
        CHECK(advise(ts).empty());
        CHECK(exit_status(ts, advise(ts)) == 0);
        ts = {target({path("eth0", 9000, 17, 8704)})};
        CHECK(advise(ts).empty());
    }
    SUBCASE("local MTU lower than the target could use")
    {
        std::vector<TargetResult> ts = {target({path("eth1", 1500, 17, 1024)})};
        auto a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "mtu_low");
        CHECK(a[0].severity == Severity::warning);
        CHECK(a[0].interface == "eth1");
        // 17 sectors (8704 bytes) need MTU 8740: advise the jumbo MTU that
        // interfaces and switches really offer, 9000, not 8740.
        CHECK(a[0].command == "ip link set eth1 mtu 9000");
        CHECK(a[0].message.find("to 9000") != std::string::npos);
        CHECK(a[0].message.find("8740") == std::string::npos);
        CHECK(exit_status(ts, a) == 3);  // problems found
        // A sector count beyond jumbo frames: capped at 9000.
        ts = {target({path("eth1", 1500, 255, 1024)})};
        CHECK(advise(ts)[0].command == "ip link set eth1 mtu 9000");
        // Two sectors fit the standard MTU: 1500, not 1060.
        ts = {target({path("eth1", 1000, 2, 512)})};
        a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "mtu_low");
        CHECK(a[0].command == "ip link set eth1 mtu 1500");

    }
    SUBCASE("target takes fewer sectors than the local MTU carries")
    {
        std::vector<TargetResult> ts = {target({path("a0", 9000, 2, 1024)})};
        auto a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "target_mtu_lower");
        // Lowering the local MTU gains AoE nothing and can break other
        // jumbo traffic: raise the target's instead (nothing to run here).
        CHECK(a[0].command.empty());
        CHECK(a[0].message.find("1024") != std::string::npos);
        CHECK(a[0].message.find("raise the MTU of the target's interface (02:00:00:00:00:02) to "
                                "9000") != std::string::npos);
        CHECK(a[0].message.find("lower this side") == std::string::npos);
        CHECK(a[0].message.find("the MTU of a0 need not change") != std::string::npos);
    }
    SUBCASE("jumbo frames silently dropped")
    {
        std::vector<TargetResult> ts = {target({path("a0", 9000, 17, 1024, Outcome::dropped)})};
        auto a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "jumbo_dropped");
        CHECK(a[0].command == "ip link set a0 mtu 1500");
        CHECK(a[0].message.find("switch") != std::string::npos);
        CHECK(exit_status(ts, a) == 3);  // problems found
        ts = {target({path("a0", 9000, 17, 4096, Outcome::dropped)})};
        CHECK(advise(ts)[0].command == "ip link set a0 mtu 4132");
    }
    SUBCASE("MTUs differ between the interfaces of one target")
    {
        std::vector<TargetResult> ts = {
            target({path("eth0", 9000, 2, 1024), path("eth1", 4200, 2, 1024, Outcome::ok, kTgt2)})};
        // The target's sector count is 2: both MTUs are higher than it uses,
        // that advice comes first; then the differing MTUs.
        auto a = advise(ts);
        CHECK(kinds(a) == std::vector<std::string>{"target_mtu_lower", "target_mtu_lower"});
        ts = {target({path("eth0", 9000, 17, 8704),
                      path("eth1", 8000, 17, 7680, Outcome::ok, kTgt2)})};
        a = advise(ts);
        // eth1 at 8000 already gets an mtu_low (raise to 9000); eth0 fine.
        CHECK(kinds(a) == std::vector<std::string>{"mtu_low"});
        ts = {target({path("eth0", 9000, 255, 8704),
                      path("eth1", 8800, 255, 8704, Outcome::ok, kTgt2)})};
        a = advise(ts);
        // 255 sectors: eth0 at 9000 is the cap; eth1 gets mtu_low to 9000.
        REQUIRE(a.size() == 1);
        CHECK(a[0].command == "ip link set eth1 mtu 9000");
        ts = {target({path("eth0", 9000, 17, 8704),
                      path("eth1", 8900, 17, 8704, Outcome::ok, kTgt2)})};
        a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "mtu_differs");
        CHECK(a[0].interface == "eth1");
        CHECK(a[0].command == "ip link set eth1 mtu 9000");
        CHECK(exit_status(ts, a) == 3);  // problems found
    }
    SUBCASE("local interface and target MAC counts differ")
    {
        std::vector<TargetResult> ts = {
            target({path("eth0", 1500, 2, 1024), path("eth0", 1500, 2, 1024, Outcome::ok, kTgt2)})};
        auto a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "path_count");
        CHECK(a[0].command.empty());
        CHECK(a[0].message.find("1 local interface (eth0) but 2 target MACs") !=
              std::string::npos);
        // Two local interfaces to the same two MACs: full mesh, fine.
        ts = {target({path("eth0", 1500, 2, 1024), path("eth0", 1500, 2, 1024, Outcome::ok, kTgt2),
                      path("eth1", 1500, 2, 1024), path("eth1", 1500, 2, 1024, Outcome::ok, kTgt2)})};
        CHECK(advise(ts).empty());
    }
    SUBCASE("errors: no reply, ATA error, no room; not measured is a warning")
    {
        std::vector<TargetResult> ts = {target({path("a0", 1500, 2, 0, Outcome::no_reply)})};
        auto a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "no_reply");
        CHECK(a[0].severity == Severity::error);
        CHECK(exit_status(ts, a) == 3);  // problems found
        auto p = path("a0", 1500, 2, 0, Outcome::ata_error);
        p.ata_status = 0x51;
        p.ata_err = 0x04;
        ts = {target({p})};
        a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].message.find("status 0x51, error 0x04") != std::string::npos);
        CHECK(exit_status(ts, a) == 3);  // problems found
        ts = {target({path("a0", 540, 2, 0, Outcome::no_room)})};
        a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "no_room");
        CHECK(a[0].command == "ip link set a0 mtu 1500");  // the standard MTU, not 1060
        ts = {target({path("a0", 1500, 2, 512, Outcome::timed_out)})};
        a = advise(ts);
        REQUIRE(a.size() == 1);
        CHECK(a[0].kind == "not_measured");
        CHECK(exit_status(ts, a) == 3);  // problems found
    }
    SUBCASE("no target at all is an error")
    {
        CHECK(exit_status({}, {}) == 1);  // nothing answered
    }
}

TEST_CASE("probe: report and JSON")
{
    auto t = target({path("a0", 9000, 2, 1024)});
    t.sectors = 131072;
    t.model = "vblade disk";
    std::vector<TargetResult> ts = {t};
    auto a = advise(ts);
    std::string text = format_report(ts, a);
    CHECK(text.find("TARGET") == 0);
    CHECK(text.find("e1.2") != std::string::npos);
    CHECK(text.find("02:00:00:00:00:02") != std::string::npos);
    CHECK(text.find("0x4019") != std::string::npos);
    CHECK(text.find("\"rack 4\"") != std::string::npos);
    CHECK(text.find("warning: e1.2:") != std::string::npos);
    CHECK(text.find("  fix: ip link set a0") == std::string::npos);
    // Size and model, as in the JSON.
    CHECK(text.find("e1.2: 131072 sectors (0.067GB), model \"vblade disk\"\n") != std::string::npos);
    auto nomodel = target({path("a0", 1500, 2, 1024)});
    std::string t2 = format_report({nomodel}, {});
    CHECK(t2.find("e1.2: size unknown (no IDENTIFY answer), model unknown\n") != std::string::npos);

    auto j = nlohmann::json::parse(to_json({iface("a0", 9000)}, ts, a, 1234).dump());
    CHECK(j["status"] == 3);
    CHECK(j["waited_ms"] == 1234);
    CHECK(j["interfaces"][0]["name"] == "a0");
    CHECK(j["interfaces"][0]["mtu"] == 9000);
    auto& jt = j["targets"][0];
    CHECK(jt["device"] == "e1.2");
    CHECK(jt["shelf"] == 1);
    CHECK(jt["slot"] == 2);
    CHECK(jt["config"] == "rack 4");
    CHECK(jt["sectors"] == 131072);
    CHECK(jt["model"] == "vblade disk");
    auto& jp = jt["paths"][0];
    CHECK(jp["interface"] == "a0");
    CHECK(jp["mac"] == "02:00:00:00:00:02");
    CHECK(jp["mtu"] == 9000);
    CHECK(jp["bufcnt"] == 16);
    CHECK(jp["fwver"] == 0x4019);
    CHECK(jp["fwver_hex"] == "0x4019");
    CHECK(jp["maxsect"] == 2);
    CHECK(jp["payload_expected"] == 1024);
    CHECK(jp["payload"] == 1024);
    CHECK(jp["result"] == "ok");
    CHECK(jp["rtt_us"].is_null());
    CHECK_FALSE(jp.contains("ata_status"));
    REQUIRE(j["advice"].size() == 1);
    CHECK(j["advice"][0]["severity"] == "warning");
    CHECK(j["advice"][0]["kind"] == "target_mtu_lower");
    CHECK(j["advice"][0]["target"] == "e1.2");
    CHECK(j["advice"][0]["interface"] == "a0");
    CHECK(j["advice"][0]["command"].is_null());

    auto pc = target({path("eth0", 1500, 2, 1024), path("eth0", 1500, 2, 1024, Outcome::ok, kTgt2)});
    auto j2 = nlohmann::json::parse(to_json({}, {pc}, advise({pc}), 0).dump());
    CHECK(j2["advice"][0]["command"].is_null());
    CHECK(j2["advice"][0]["interface"].is_null());
    auto empty = nlohmann::json::parse(to_json({}, {}, {}, 5).dump());
    CHECK(empty["status"] == 1);
    CHECK(empty["targets"].empty());
}
