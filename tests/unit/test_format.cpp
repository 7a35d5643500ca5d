// Unit tests for text and JSON output (userland/lib/stat/format.cpp), including a
// side-by-side run of aoetools' own aoe-stat on a fake sysfs.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "core/error.hpp"
#include "stat/format.hpp"

using namespace aoe;

namespace {

Path path(const char* ifname, uint8_t last, uint32_t payload)
{
    Path p;
    p.ifindex = 3;
    p.ifname = ifname;
    p.mac = {0x00, 0x11, 0x22, 0x33, 0x44, last};
    p.state = AOE_PATH_STATE_UP;
    p.bufcnt = 16;
    p.fwver = 0x4019;
    p.maxsect = 17;
    p.mtu = 1500;
    p.payload = payload;
    p.last_rx_ms = 40;
    p.counters.frames_sent = 10;
    p.counters.frames_received = 9;
    p.counters.drops = Drops{};
    return p;
}

Target target(uint16_t shelf, uint8_t slot, std::optional<uint64_t> sectors, uint32_t state,
              std::vector<Path> paths, uint32_t payload)
{
    Target t;
    t.shelf = shelf;
    t.slot = slot;
    t.device = device_name(shelf, slot);
    t.generation = 7;
    t.state = state;
    t.sectors = sectors;
    t.payload = payload;
    t.config = "vblade";
    t.last_rx_ms = 40;
    t.counters.frames_sent = 20;
    t.counters.frames_received = 18;
    t.counters.drops = Drops{{AOE_DROP_NO_TAG, 3}};
    t.paths = std::move(paths);
    return t;
}

std::vector<Target> sample()
{
    return {
        target(1, 2, 524288, AOE_TARGET_STATE_UP, {path("a0", 0x55, 1024)}, 1024),
        target(0, 10, 8589934592ull, AOE_TARGET_STATE_DOWN,
               {path("a0", 0x56, 8704), path("a1", 0x57, 8704), path("a0", 0x58, 8704)}, 8704),
        target(10, 1, 0, AOE_TARGET_STATE_INIT, {}, 0),
    };
}

std::string run(const std::string& cmd)
{
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    REQUIRE(f);
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        out.append(buf, n);
    pclose(f);
    return out;
}

}  // namespace

TEST_CASE("format: a path in another network namespace names it")
{
    Path p = path("a0", 1, 1024);
    CHECK(path_ifname(p) == "a0");
    p.netnsid = 3;
    CHECK(path_ifname(p) == "a0@ns3");
    p.netnsid = -1;
    CHECK(path_ifname(p) == "a0@ns?");
    p.ifname.reset();
    p.netnsid = 0;
    CHECK(path_ifname(p) == "if3@ns0");
    Target t;
    Path q = path("a0", 2, 1024);
    p = path("a0", 1, 1024);
    p.netnsid = 2;
    t.paths = {q, p};
    CHECK(target_netifs(t) == "a0,a0@ns2");
}

TEST_CASE("format: sizes as aoetools prints them")
{
    CHECK(format_size_aoetools(524288) == "0.268GB");         // 256 MiB
    CHECK(format_size_aoetools(0) == "0.000GB");
    CHECK(format_size_aoetools(203125) == "0.104GB");         // aoe-stat(8) example
    CHECK(format_size_aoetools(8589934592ull) == "4398.046GB");  // 4 TiB, aoe-stat(8)
    CHECK(format_size_aoetools(1953125) == "1.000GB");
    CHECK(format_size_aoetools(1953124) == "0.999GB");        // truncated, not rounded
    CHECK(format_size_aoetools(std::nullopt) == "(NA)");
}

TEST_CASE("format: MAC, firmware, missing values, escaping")
{
    CHECK(format_mac({0x00, 0x11, 0x22, 0x33, 0x44, 0x55}) == "00:11:22:33:44:55");
    CHECK(format_mac({0xde, 0xad, 0xbe, 0xef, 0x0a, 0xff}) == "de:ad:be:ef:0a:ff");
    CHECK(format_fwver(0x4019) == "0x4019");
    CHECK(text_or_dash(std::optional<uint64_t>()) == "-");
    CHECK(text_or_dash(std::optional<uint64_t>(0)) == "0");
    CHECK(printable(std::string("a\"b\\c\n\xff", 7)) == "a\\\"b\\\\c\\x0a\\xff");
}

TEST_CASE("format: aoe-stat rows in aoetools' column layout")
{
    auto ts = sample();
    CHECK(stat_row(ts[0]) == "      e1.2         0.268GB         a0 1024  up            ");
    CHECK(stat_row(ts[1]) == "     e0.10      4398.046GB      a0,a1 8704  down          ");
    CHECK(stat_row(ts[2]) == "     e10.1         0.000GB       none 0     init          ");
    Target unknown = ts[0];
    unknown.sectors.reset();
    unknown.payload.reset();
    unknown.state.reset();
    CHECK(stat_row(unknown) == "      e1.2            (NA)         a0 (NA)  (NA)          ");

    auto rows = stat_rows(ts);
    REQUIRE(rows.size() == 3);
    // `sort` in the C locale on the right-aligned device names: shorter
    // names (more leading blanks) first, then byte order.
    CHECK(rows[0].target->device == "e1.2");
    CHECK(rows[1].target->device == "e0.10");
    CHECK(rows[2].target->device == "e10.1");
}

TEST_CASE("format: aoe-stat output is aoetools' aoe-stat output on the same data")
{
    const char* aoetools = "/sbin/aoe-stat";
    if (access(aoetools, X_OK) != 0) {
        MESSAGE("aoetools not installed: side-by-side check skipped");
        return;
    }
    // aoetools drops every sysfs path containing a 'p' (partitions): a
    // relative directory without one.
    std::filesystem::path dir = "aoekit-sysfs-" + std::to_string(getpid());
    auto ts = sample();
    for (const auto& t : ts) {
        auto d = dir / "block" / ("etherd!" + t.device);
        std::filesystem::create_directories(d);
        std::ofstream(d / "size") << *t.sectors << '\n';
        std::ofstream(d / "netif") << target_netifs(t) << '\n';
        std::ofstream(d / "state") << target_state_name(*t.state) << '\n';
        std::ofstream(d / "payload") << *t.payload << '\n';
    }
    std::string theirs = run("LC_ALL=C sysfs_dir=" + dir.string() + " " + aoetools);
    std::string theirs_re = run("LC_ALL=C sysfs_dir=" + dir.string() + " " + aoetools + " 'e1'");
    std::filesystem::remove_all(dir);

    std::string ours, ours_re;
    for (const auto& r : stat_rows(ts))
        ours += r.text + "\n";
    for (const auto& r : filter_rows(stat_rows(ts), grep_matcher("e1")))
        ours_re += r.text + "\n";
    CHECK(ours == theirs);
    CHECK(ours_re == theirs_re);
    CHECK(std::count(ours_re.begin(), ours_re.end(), '\n') == 2);
}

TEST_CASE("format: REGEX filters like grep")
{
    auto ts = sample();
    auto names = [&](const std::string& re) {
        std::vector<std::string> out;
        for (const auto& r : filter_rows(stat_rows(ts), grep_matcher(re)))
            out.push_back(r.target->device);
        return out;
    };
    CHECK(names("e1\\.2") == std::vector<std::string>{"e1.2"});
    CHECK(names("e1") == std::vector<std::string>{"e1.2", "e10.1"});
    CHECK(names(" e1\\.") == std::vector<std::string>{"e1.2"});
    CHECK(names("down") == std::vector<std::string>{"e0.10"});
    CHECK(names("a1") == std::vector<std::string>{"e0.10"});
    CHECK(names("e[01]\\.[0-9]*  ") == std::vector<std::string>{"e1.2", "e0.10"});
    CHECK(names("e1+") == std::vector<std::string>{});  // + is literal in a basic RE
    // GNU grep's BRE alternation and intervals (std::regex::basic refused
    // 'e1\|e9' with "Invalid escape").
    CHECK(names("e1\\.2\\|e0\\.10") == std::vector<std::string>{"e1.2", "e0.10"});
    CHECK(names("e1\\|down") == std::vector<std::string>{"e1.2", "e0.10", "e10.1"});
    CHECK(names("e1\\{1\\}0") == std::vector<std::string>{"e10.1"});
    CHECK(names("e1|e0") == std::vector<std::string>{});  // | is literal in a basic RE
    CHECK(names("nothing") == std::vector<std::string>{});
    CHECK_THROWS_AS(grep_matcher("e1\\("), UsageError);
    CHECK_THROWS_AS(grep_matcher("[e"), UsageError);
}

TEST_CASE("format: per-path lines, discover lines, module summary")
{
    auto ts = sample();
    ts[0].paths[0].rtt_avg_us = 250;
    ts[0].paths[0].rtt_dev_us = 40;
    auto lines = path_lines(ts[0]);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "        a0 00:11:22:33:44:55 up   payload 1024 bufcnt 16 fw 0x4019 maxsect 17 mtu 1500 "
          "rtt 250/40us rto - window - out - sent 10 rcvd 9 retrans - timeouts - lost -");
    CHECK(path_lines(ts[2]).empty());
    CHECK_FALSE(fence_line(ts[0]));  // a kernel without the fence counters
    ts[0].counters.fence_ghosts = 7;
    ts[0].counters.fence_held = 3;
    ts[0].counters.fence_held_us = 2500;
    CHECK(fence_line(ts[0]) == std::string("     fence ghosts 7 held 3 for 2 ms"));

    CHECK(discover_line(ts[0], true) ==
          "e1.2       new  a0 -> 00:11:22:33:44:55  bufcnt 16  fw 0x4019  payload 1024  up  "
          "\"vblade\"");
    ts[1].config = "";
    CHECK(discover_line(ts[1], false) ==
          "e0.10           a0 -> 00:11:22:33:44:56, a1 -> 00:11:22:33:44:57, "
          "a0 -> 00:11:22:33:44:58  bufcnt 16  fw 0x4019  payload 8704  down");

    ModuleInfo m;
    m.version = "0.1.0";
    m.iflist = "";
    m.deadsecs = 180;
    m.maxout = 64;
    m.dyndevs = 1;
    m.maxsectors = 0;
    m.ntargets = 3;
    m.generation = 9;
    m.drops = Drops{{AOE_DROP_IFACE, 12}, {AOE_DROP_LATE, 1}};
    m.interfaces = {{3, "a0", 1500, true}, {4, "a1", std::nullopt, false}};
    CHECK(format_info_text(m) ==
          "aoe module 0.1.0: 3 targets, generation 9\n"
          "parameters: aoe_iflist=\"\" aoe_deadsecs=180 aoe_maxout=64 aoe_dyndevs=1 "
          "aoe_maxsectors=0 aoe_flush=-\n"
          "interfaces: a0 (up, mtu 1500), a1 (down, mtu -)\n"
          "drops: iface 12, late 1\n");
    CHECK(format_info_text(ModuleInfo{}) ==
          "aoe module (unknown version): - targets, generation -\n"
          "parameters: aoe_iflist=\"-\" aoe_deadsecs=- aoe_maxout=- aoe_dyndevs=- "
          "aoe_maxsectors=- aoe_flush=-\n"
          "interfaces: none\n"
          "drops: -\n");
}

TEST_CASE("format: target JSON")
{
    auto ts = sample();
    Json j = to_json(ts[0]);
    CHECK(j.dump() ==
          R"({"device":"e1.2","shelf":1,"slot":2,"state":"up","sectors":524288,)"
          R"("size_bytes":268435456,"payload":1024,"model":null,"serial":null,"firmware":null,)"
          R"("lba48":false,"config":"vblade","last_rx_ms":40,"outstanding":null,)"
          R"("flush_mode":null,"write_cache":null,"fua":null,"cache":null,"policy":null,)"
          R"("counters":{"frames_sent":20,"frames_received":18,"drops":{"no_tag":3}},)"
          R"("paths":[{"interface":"a0","ifindex":3,"mac":"00:11:22:33:44:55","state":"up",)"
          R"("bufcnt":16,"fwver":16409,"fwver_hex":"0x4019","maxsect":17,"mtu":1500,)"
          R"("payload":1024,"rtt_avg_us":null,"rtt_dev_us":null,"rtt_min_us":null,)"
          R"("rto_us":null,"window":null,"outstanding":null,"last_rx_ms":40,)"
          R"("counters":{"frames_sent":10,"frames_received":9,"drops":{}}}],"conflicts":[]})");

    // Missing counters are left out, never 0; missing values are null.
    Target bare;
    bare.shelf = 3;
    bare.slot = 4;
    bare.device = "e3.4";
    Json b = to_json(bare);
    CHECK(b["counters"] == Json::object());
    CHECK(b["state"].is_null());
    CHECK(b["sectors"].is_null());
    CHECK(b["size_bytes"].is_null());
    CHECK(b["paths"] == Json::array());

    // Config strings are raw bytes: invalid UTF-8 must not break the output.
    bare.config = std::string("\xff\xfe ok", 5);
    std::string text = dump_json(to_json(bare));
    CHECK(text.find("\"config\": \"\xEF\xBF\xBD\xEF\xBF\xBD ok\"") != std::string::npos);
    CHECK(nlohmann::json::parse(text)["device"] == "e3.4");
}

TEST_CASE("format: module JSON")
{
    ModuleInfo m;
    m.version = "0.1.0";
    m.iflist = "a0";
    m.deadsecs = 180;
    m.maxout = 64;
    m.dyndevs = 1;
    m.maxsectors = 0;
    m.ntargets = 1;
    m.generation = 2;
    m.drops = Drops{{AOE_DROP_NO_TARGET, 5}, {42, 1}};
    m.interfaces = {{3, "a0", 1500, true}};
    CHECK(to_json(m).dump() ==
          R"({"version":"0.1.0","iflist":"a0","deadsecs":180,"maxout":64,"dyndevs":1,)"
          R"("maxsectors":0,"fast_fail":null,"flush":null,"generation":2,"targets":1,"evictions":null,)"
          R"("drops":{"no_target":5,"reason_42":1},)"
          R"("interfaces":[{"name":"a0","ifindex":3,"mtu":1500,"up":true}]})");
    CHECK(to_json(ModuleInfo{})["drops"].is_null());
    m.evictions = 977;
    CHECK(to_json(m)["evictions"] == 977);
    m.flush_mode = AOE_FLUSH_MODE_ALWAYS;
    CHECK(to_json(m)["flush"] == "always");
    CHECK(format_info_text(m).find("aoe_maxsectors=0 aoe_flush=always\n") != std::string::npos);
    m.fast_fail = 0;
    CHECK(to_json(m)["fast_fail"] == 0);
    CHECK(format_info_text(m).find("aoe_flush=always aoe_fast_fail=0\n") != std::string::npos);
}

TEST_CASE("format: failure policy")
{
    Target t;
    t.device = "e1.2";
    CHECK_FALSE(policy_line(t));  // a module without it
    CHECK(policy_json(t).is_null());
    CHECK(to_json(t)["policy"].is_null());
    t.deadsecs = 180;
    t.fast_fail = 0;
    t.policy = 0;
    t.fast_fails = 0;
    CHECK(policy_line(t) ==
          std::string("    policy deadsecs 180 (module) fast-fail off (module) fast_fails 0"));
    t.deadsecs = 10;
    t.fast_fail = 3;
    t.fast_fails = 2;
    t.policy = AOE_POLICY_DEADSECS_OWN | AOE_POLICY_FAST_FAIL_OWN | AOE_POLICY_FAILING;
    CHECK(policy_line(t) ==
          std::string("    policy deadsecs 10 (target) fast-fail 3 (target) fast_fails 2; "
                      "failing: no usable path, new I/O fails at once"));
    CHECK(policy_json(t).dump() ==
          R"({"deadsecs":10,"deadsecs_source":"target","fast_fail":3,)"
          R"("fast_fail_source":"target","failing":true,"fast_fails":2})");
    CHECK(to_json(t)["policy"]["deadsecs"] == 10);
}

TEST_CASE("format: write cache in JSON and aoe-stat -a")
{
    Target t = sample()[0];
    t.flush_mode = AOE_FLUSH_MODE_DEFAULT;
    t.cache = AOE_CACHE_ENABLED | AOE_CACHE_FLUSH | AOE_CACHE_FLUSH_EXT | AOE_CACHE_FUA |
              AOE_CACHE_WRITE_BACK | AOE_CACHE_QUEUE_FUA;
    t.counters.flushes_sent = 12;
    t.counters.flushes_answered = 11;
    t.counters.flushes_failed = 1;
    t.counters.fua_writes = 5;
    Json j = to_json(t);
    CHECK(j["flush_mode"] == "default");
    CHECK(j["write_cache"] == true);
    CHECK(j["fua"] == true);
    CHECK(j["cache"] == Json{{"enabled", true}, {"flush", true}, {"flush_ext", true},
                             {"fua", true}, {"flush_refused", false}});
    CHECK(j["counters"]["flushes_sent"] == 12);
    CHECK(j["counters"]["flushes_answered"] == 11);
    CHECK(j["counters"]["flushes_failed"] == 1);
    CHECK(j["counters"]["fua_writes"] == 5);
    CHECK(cache_line(t, AOE_FLUSH_MODE_AUTO) ==
          "     cache flush auto (module) write back fua; identify: write cache on, FLUSH "
          "CACHE, FLUSH CACHE EXT, FUA; flushes sent 12 answered 11 failed 1 fua_writes 5");

    t.flush_mode = AOE_FLUSH_MODE_ALWAYS;
    t.cache = AOE_CACHE_FLUSH | AOE_CACHE_FLUSH_REFUSED;
    j = to_json(t);
    CHECK(j["write_cache"] == false);
    CHECK(j["cache"]["flush_refused"] == true);
    CHECK(cache_line(t, std::nullopt) ==
          "     cache flush always write through; identify: no write cache, FLUSH CACHE, "
          "FLUSH aborted; flushes sent 12 answered 11 failed 1 fua_writes 5");

    Target bare;
    CHECK(cache_line(bare, std::nullopt) ==
          "     cache flush - -; identify: -; flushes sent - answered - failed - fua_writes -");
}

TEST_CASE("format: aoe-stat -x extended columns")
{
    Target t = target(1, 2, 524288, AOE_TARGET_STATE_UP,
                      {path("a0", 0x55, 1024), path("a1", 0x56, 1024), path("a2", 0x57, 1024)},
                      1024);
    t.paths[0].rtt_avg_us = 1000;
    t.paths[0].rtt_dev_us = 200;
    t.paths[0].window = 8;
    t.paths[1].rtt_avg_us = 3000;
    t.paths[1].rtt_dev_us = 400;
    t.paths[1].window = 4;
    t.paths[2].state = AOE_PATH_STATE_DOWN;  // not counted in RTT and window
    t.paths[2].rtt_avg_us = 90000;
    t.paths[2].window = 100;
    t.outstanding = 5;
    t.counters.retransmits = 7;
    t.counters.bytes_read = 4096;
    std::string cols = stat_extended_columns(t);
    CHECK(cols == fmt::format("{:>5} {:>15} {:>9} {:>8} {:>12} {:>12}", "2/3",
                              "2.000\u00b10.300", "12/5", "7", "4096", "-"));

    Target bare = target(10, 1, 0, AOE_TARGET_STATE_INIT, {}, 0);
    CHECK(stat_extended_columns(bare) ==
          fmt::format("{:>5} {:>15} {:>9} {:>8} {:>12} {:>12}", "0/0", "-", "-/-", "-", "-", "-"));
    CHECK(stat_extended_header().starts_with("    DEVICE            SIZE      NETIF PAYLD STATE"));
    CHECK(stat_extended_header().find("RTT(ms)") != std::string::npos);
}

TEST_CASE("format: identity and address conflicts (aoe-stat -a, --json, --monitor)")
{
    Target t;
    t.device = "e1.2";
    t.shelf = 1;
    t.slot = 2;
    t.serial = "1.2:host";
    t.model = "Coraid EtherDrive vblade";
    t.sectors = 524288;
    t.lba48 = true;
    t.counters.address_conflicts = 1;
    Conflict c;
    c.ifindex = 4;
    c.ifname = "a1";
    c.mac = {0x02, 0, 0, 0, 0, 0x0b};
    c.serial = "1.2:impostor";
    c.reason = AOE_CONFLICT_SERIAL;
    c.age_ms = 2500;
    c.expires_ms = 297500;
    t.conflicts.push_back(c);

    auto lines = identity_lines(t);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "  identity serial \"1.2:host\" model \"Coraid EtherDrive vblade\" 524288 "
                      "sectors lba48; address_conflicts 1");
    CHECK(lines[1] == "  conflict a1 -> 02:00:00:00:00:0b answers as serial \"1.2:impostor\" "
                      "(serial differs), refused 2 s ago, remembered 297 s more");

    nlohmann::json j = to_json(t);
    CHECK(j["counters"]["address_conflicts"] == 1);
    REQUIRE(j["conflicts"].size() == 1);
    CHECK(j["conflicts"][0]["interface"] == "a1");
    CHECK(j["conflicts"][0]["mac"] == "02:00:00:00:00:0b");
    CHECK(j["conflicts"][0]["serial"] == "1.2:impostor");
    CHECK(j["conflicts"][0]["reason"] == "serial");
    CHECK(j["conflicts"][0]["expires_ms"] == 297500);

    Event e;
    e.cmd = AOE_CMD_ADDRESS_CONFLICT;
    e.target = t;
    CHECK(event_line(e) == "e1.2 address_conflict a1 -> 02:00:00:00:00:0b answers as serial "
                           "\"1.2:impostor\", not \"1.2:host\"");
    e.cmd = AOE_CMD_TARGET_UP;
    CHECK(event_line(e) == "e1.2 up");

    // no identity yet, a module without the counter: "-", no conflict lines
    Target u;
    u.device = "e1.3";
    lines = identity_lines(u);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "  identity serial \"-\" model \"-\" - sectors; address_conflicts -");
    CHECK(to_json(u)["conflicts"].empty());
}
