// Unit tests for the Prometheus exposition (userland/lib/prometheus.cpp).
// tests/host/prometheus.sh also runs promtool over the same kind of output.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <sstream>

#include "aoe_netlink.h"
#include "stat/prometheus.hpp"

using namespace aoe;

namespace {

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

bool has_line(const std::string& text, const std::string& line)
{
    for (const auto& l : lines(text))
        if (l == line)
            return true;
    return false;
}

Target sample_target()
{
    Target t;
    t.shelf = 1;
    t.slot = 2;
    t.device = "e1.2";
    t.state = AOE_TARGET_STATE_UP;
    t.sectors = 2048;
    t.payload = 1024;
    t.outstanding = 5;
    t.counters.frames_sent = 100;
    t.counters.retransmits = 3;
    t.counters.bytes_read = 4096;
    t.counters.drops = Drops{{AOE_DROP_LATE, 2}};
    Path p;
    p.ifname = "eth0";
    p.mac = {0, 0x11, 0x22, 0x33, 0x44, 0x55};
    p.state = AOE_PATH_STATE_UP;
    p.rtt_avg_us = 250;
    p.window = 16;
    p.outstanding = 5;
    p.payload = 1024;
    p.counters.frames_sent = 100;
    t.paths.push_back(p);
    Path down = p;
    down.ifname = "eth1";
    down.state = AOE_PATH_STATE_DOWN;
    down.rtt_avg_us.reset();
    t.paths.push_back(down);
    return t;
}

}  // namespace

TEST_CASE("prometheus: label values are escaped")
{
    CHECK(prom_escape("plain") == "plain");
    CHECK(prom_escape("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}

TEST_CASE("prometheus: targets, paths and module metrics")
{
    ModuleInfo m;
    m.version = "0.1.0";
    m.ntargets = 1;
    m.drops = Drops{{AOE_DROP_NO_TARGET, 7}, {AOE_DROP_LATE, 2}};
    m.interfaces = {{2, "eth0", 1500, true}};
    std::string text = format_prometheus(&m, {sample_target()});

    CHECK(has_line(text, "aoe_up 1"));
    CHECK(has_line(text, "aoe_module_info{version=\"0.1.0\"} 1"));
    CHECK(has_line(text, "aoe_module_targets 1"));
    CHECK(has_line(text, "aoe_module_dropped_frames_total{reason=\"no_target\"} 7"));
    CHECK(has_line(text, "aoe_module_dropped_frames_total{reason=\"late\"} 2"));
    CHECK(has_line(text, "aoe_module_interface_up{interface=\"eth0\"} 1"));
    CHECK(has_line(text, "# TYPE aoe_target_frames_sent_total counter"));
    CHECK(has_line(text, "aoe_target_frames_sent_total{target=\"e1.2\"} 100"));
    CHECK(has_line(text, "aoe_target_retransmits_total{target=\"e1.2\"} 3"));
    CHECK(has_line(text, "aoe_target_read_bytes_total{target=\"e1.2\"} 4096"));
    CHECK(has_line(text, "aoe_target_dropped_frames_total{target=\"e1.2\",reason=\"late\"} 2"));
    CHECK(has_line(text, "aoe_target_size_bytes{target=\"e1.2\"} 1048576"));
    CHECK(has_line(text, "aoe_target_payload_bytes{target=\"e1.2\"} 1024"));
    CHECK(has_line(text, "aoe_target_outstanding_frames{target=\"e1.2\"} 5"));
    CHECK(has_line(text, "aoe_target_state{target=\"e1.2\",state=\"up\"} 1"));
    CHECK(has_line(text, "aoe_target_state{target=\"e1.2\",state=\"down\"} 0"));
    CHECK(has_line(text, "aoe_target_paths{target=\"e1.2\"} 2"));
    CHECK(has_line(text, "aoe_target_paths_up{target=\"e1.2\"} 1"));
    CHECK(has_line(text, "# TYPE aoe_path_rtt_seconds gauge"));
    CHECK(has_line(text, "aoe_path_rtt_seconds{target=\"e1.2\",interface=\"eth0\","
                         "mac=\"00:11:22:33:44:55\"} 0.00025"));
    CHECK(has_line(text, "aoe_path_window_frames{target=\"e1.2\",interface=\"eth0\","
                         "mac=\"00:11:22:33:44:55\"} 16"));
    CHECK(has_line(text, "aoe_path_state{target=\"e1.2\",interface=\"eth1\","
                         "mac=\"00:11:22:33:44:55\",state=\"down\"} 1"));
    CHECK(has_line(text, "aoe_path_frames_sent_total{target=\"e1.2\",interface=\"eth0\","
                         "mac=\"00:11:22:33:44:55\"} 100"));
    // Missing values are left out, never 0.
    CHECK(text.find("aoe_target_timeouts_total") == std::string::npos);
    CHECK(text.find("aoe_path_rtt_seconds{target=\"e1.2\",interface=\"eth1\"") ==
          std::string::npos);
    CHECK(text.find("aoe_target_last_rx_seconds") == std::string::npos);
}

TEST_CASE("prometheus: one HELP and TYPE per family, samples grouped")
{
    Target a = sample_target();
    Target b = sample_target();
    b.shelf = 3;
    b.device = "e3.2";
    ModuleInfo m;
    std::string text = format_prometheus(&m, {a, b});
    std::set<std::string> seen;
    std::string current;
    std::set<std::string> closed;
    static const std::regex sample(R"(^([a-z_]+)(\{.*\})? \S+$)");
    for (const auto& l : lines(text)) {
        std::smatch mt;
        if (l.rfind("# TYPE ", 0) == 0) {
            std::string name = l.substr(7, l.find(' ', 7) - 7);
            CHECK_MESSAGE(seen.insert(name).second, "family declared twice: " << name);
            if (!current.empty())
                closed.insert(current);
            current = name;
        } else if (l.rfind("# HELP ", 0) == 0) {
            continue;
        } else {
            REQUIRE_MESSAGE(std::regex_match(l, mt, sample), "bad sample line: " << l);
            CHECK_MESSAGE(mt[1].str() == current, "sample outside its family: " << l);
        }
    }
    CHECK(seen.count("aoe_target_frames_sent_total"));
    CHECK(has_line(text, "aoe_target_frames_sent_total{target=\"e3.2\"} 100"));
}

TEST_CASE("prometheus: no module")
{
    std::string text = format_prometheus(nullptr, {});
    CHECK(text == "# HELP aoe_up 1 if the aoe module answered over netlink\n"
                  "# TYPE aoe_up gauge\naoe_up 0\n");
}
