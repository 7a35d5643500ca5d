// Unit tests for aoe-top's views (userland/lib/top/view.cpp, screen.cpp):
// golden screens at 80x24 and 200x50 rendered into the virtual grid, column
// dropping on narrow screens, detail and help views, batch text and JSON.
// AOE_UPDATE_GOLDEN=1 rewrites tests/unit/golden/top_*.txt.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aoe_netlink.h"
#include "top/keys.hpp"
#include "top/view.hpp"

using namespace aoe;
using namespace aoe::top;

namespace {

const std::filesystem::path kGolden = std::filesystem::path(__FILE__).parent_path() / "golden";

// 5 synthetic targets after 3 one-second samples, e1.1 down by event.
Model model()
{
    SyntheticSource src(5, false);
    Model m;
    for (int i = 0; i < 3; ++i)
        m.update(src.sample());
    Event e;
    e.cmd = AOE_CMD_TARGET_DOWN;
    e.target.shelf = 1;
    e.target.slot = 1;
    m.apply_event(e);
    return m;
}

UiState ui()
{
    UiState u;
    u.host = "testhost";
    u.selected = "e1.3";
    return u;
}

void check_golden(const Grid& g, const std::string& name)
{
    std::string actual = g.text();
    auto file = kGolden / name;
    const char* update = std::getenv("AOE_UPDATE_GOLDEN");
    if (update && *update == '1') {
        std::ofstream(file) << actual;
        return;
    }
    std::ifstream in(file);
    REQUIRE_MESSAGE(in, "missing golden file " << file.string());
    std::stringstream want;
    want << in.rdbuf();
    CHECK_MESSAGE(actual == want.str(), "screen differs from " << file.string() << ":\n" << actual);
}

}  // namespace

TEST_CASE("grid: clipping, attributes, text")
{
    Grid g(5, 2);
    CHECK(g.put(3, 0, "abcd", kBold) == 7);
    CHECK(g.line(0) == "   ab");
    CHECK(g.at(3, 0).attr == kBold);
    g.put(0, 5, "x");  // off screen: ignored
    g.put(0, 1, "\x01");
    CHECK(g.line(1) == "?");
    g.attr_row(1, kReverse);
    CHECK(g.at(4, 1).attr == kReverse);
}

TEST_CASE("view: table at 80x24 matches the golden screen")
{
    Grid g(80, 24);
    render(g, model(), ui());
    check_golden(g, "top_80x24.txt");
    // The narrow screen kept the important columns and dropped the rest.
    CHECK(g.line(4).find("DEVICE") == 0);
    CHECK(g.line(4).find("RETR/s") != std::string::npos);
    CHECK(g.line(4).find("PAYLD") == std::string::npos);
    CHECK(g.line(4).find("THROUGHPUT") == std::string::npos);
    // Selected row reversed, sort marker on DEVICE.
    CHECK(g.line(8).find("e1.3") == 0);
    CHECK((g.at(0, 8).attr & kReverse));
    CHECK(g.line(4).find("DEVICE*") == 0);
}

TEST_CASE("view: table at 200x50 matches the golden screen")
{
    Grid g(200, 50);
    UiState u = ui();
    u.sort = SortKey::kRetrans;
    render(g, model(), u);
    check_golden(g, "top_200x50.txt");
    CHECK(g.line(4).find("RETR/s*") != std::string::npos);
    CHECK(g.line(4).find("THROUGHPUT") != std::string::npos);
    CHECK(g.line(4).find("PAYLD") != std::string::npos);
}

TEST_CASE("view: columns drop in order as the screen narrows")
{
    std::vector<std::string> seen;
    for (int w : {200, 120, 100, 80, 60, 40, 20}) {
        Grid g(w, 10);
        render_table(g, 0, model(), ui());
        CHECK(static_cast<int>(g.line(0).size()) <= w);
        CHECK(g.line(0).find("DEVICE") == 0);
    }
    Grid g(20, 10);
    render_table(g, 0, model(), ui());
    CHECK(g.line(0) == "DEVICE*   STATE");
}

TEST_CASE("view: first sample shows '-' for every rate")
{
    SyntheticSource src(2, false);
    Model m;
    m.update(src.sample());
    Grid g(200, 10);
    render(g, m, ui());
    CHECK(g.line(2) == "Total: read - MB/s, write - MB/s, - IOPS, - retr/s; 2 up, 0 down");
    CHECK(g.line(5).find("e1.0      up       2/2        -        -       -       -") == 0);
}

TEST_CASE("view: rising retransmits and down targets are highlighted")
{
    Grid g(200, 50);
    render(g, model(), ui());
    // e1.0 (row 5): retransmits rising every sample on every third target.
    int x = static_cast<int>(g.line(4).find("RETR/s"));
    CHECK((g.at(x + 5, 5).attr & kAlert));
    CHECK_FALSE((g.at(x + 5, 6).attr & kAlert));
    // e1.1 is down: STATE alerted.
    CHECK((g.at(10, 6).attr & kAlert));
}

TEST_CASE("view: detail view lists every path with its counters")
{
    Grid g(120, 30);
    UiState u = ui();
    u.view = View::kDetail;
    render(g, model(), u);
    check_golden(g, "top_detail_120x30.txt");
    CHECK(g.text().find("a0 -> 02:00:00:03:00:00") != std::string::npos);
    CHECK(g.text().find("b0 -> 02:00:00:03:00:01") != std::string::npos);
    CHECK(g.text().find("model: synthetic disk") != std::string::npos);
    CHECK(g.text().find("config: \"cfg\"") != std::string::npos);
}

TEST_CASE("view: help lists every key")
{
    Grid g(80, 24);
    UiState u = ui();
    u.view = View::kHelp;
    render(g, model(), u);
    std::string t = g.text();
    for (const auto& b : key_table())
        CHECK_MESSAGE(t.find(b.label) != std::string::npos, b.label);
}

TEST_CASE("view: module not loaded says so")
{
    Model m;
    Sample s;
    s.module_loaded = false;
    s.error = "aoe module not loaded: run modprobe aoe";
    m.update(s);
    Grid g(80, 24);
    render(g, m, ui());
    CHECK(g.line(1) == "aoe module not loaded: run modprobe aoe (waiting for it)");
    CHECK(g.line(5) == "no targets");
}

TEST_CASE("batch: text has no selection, JSON has rates and nulls")
{
    Model m = model();
    std::string t = batch_text(m, ui(), 200);
    CHECK(t.find("e1.4") != std::string::npos);
    CHECK(t.find("aoe-top - testhost") == 0);
    // Each sample's header carries its time (the third synthetic sample).
    CHECK(t.substr(0, t.find('\n')).find(" - 2026-01-01T00:00:02Z - ") != std::string::npos);

    Json j = sample_json(m, ui());
    CHECK(j["module_loaded"] == true);
    CHECK(j["time"] == "2026-01-01T00:00:02.000Z");
    CHECK(j["timestamp"].get<double>() == doctest::Approx(1767225602.0));
    REQUIRE(j["targets"].size() == 5);
    CHECK(j["targets"][0]["device"] == "e1.0");
    CHECK(j["targets"][0]["read_bytes_per_s"].get<double>() == doctest::Approx(3072.0));
    CHECK(j["targets"][0]["retransmits_per_s"].get<double>() == doctest::Approx(3.0));
    CHECK(j["targets"][1]["state"] == "down");

    SyntheticSource src(1, false);
    Model first;
    first.update(src.sample());
    Json f = sample_json(first, ui());
    CHECK(f["targets"][0]["read_bytes_per_s"].is_null());
    CHECK(f["totals"]["iops"].is_null());
}

TEST_CASE("batch: timestamps are RFC 3339 UTC, milliseconds in JSON")
{
    using namespace std::chrono;
    WallClock::time_point t(milliseconds(int64_t{1764621065} * 1000 + 7));
    CHECK(format_time(t) == "2025-12-01T20:31:05Z");
    CHECK(format_time(t, true) == "2025-12-01T20:31:05.007Z");
    CHECK(format_time(WallClock::time_point{}, true) == "1970-01-01T00:00:00.000Z");
}
