// Unit tests for aoe-discover's selection of the targets that answered
// (userland/lib/discover.cpp).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "probe/discover.hpp"

using namespace aoe;

namespace {

Target target(uint16_t shelf, uint8_t slot, std::optional<uint64_t> last_rx_ms,
              std::vector<std::pair<std::string, std::optional<uint64_t>>> paths)
{
    Target t;
    t.shelf = shelf;
    t.slot = slot;
    t.device = device_name(shelf, slot);
    t.state = AOE_TARGET_STATE_UP;
    t.last_rx_ms = last_rx_ms;
    for (auto& [ifname, rx] : paths) {
        Path p;
        p.ifname = ifname;
        p.last_rx_ms = rx;
        t.paths.push_back(p);
    }
    return t;
}

std::vector<std::string> names(const std::vector<const Target*>& ts)
{
    std::vector<std::string> out;
    for (const auto* t : ts)
        out.push_back(t->device);
    return out;
}

}  // namespace

TEST_CASE("discover: which targets answered")
{
    std::vector<Target> ts = {
        target(3, 1, 100, {{"a0", 100}}),                  // answered 100 ms ago
        target(1, 2, 5000, {{"a0", 5000}, {"a1", 7000}}),  // quiet for 5 s
        target(0, 10, std::nullopt, {{"a1", std::nullopt}}),  // never answered
        target(1, 1, 1500, {{"a0", 9000}, {"a1", 1500}}),  // answered on a1
    };
    CHECK(names(answered_targets(ts, {}, 2000, std::nullopt)) ==
          std::vector<std::string>{"e1.1", "e3.1"});
    // A target announced as new counts even when its timestamp says otherwise.
    CHECK(names(answered_targets(ts, {"e0.10"}, 2000, std::nullopt)) ==
          std::vector<std::string>{"e0.10", "e1.1", "e3.1"});
    // Only answers on the interface asked for.
    CHECK(names(answered_targets(ts, {}, 2000, std::string("a1"))) ==
          std::vector<std::string>{"e1.1"});
    CHECK(names(answered_targets(ts, {"e0.10"}, 2000, std::string("a1"))) ==
          std::vector<std::string>{"e0.10", "e1.1"});
    CHECK(names(answered_targets(ts, {"e0.10"}, 2000, std::string("a2"))).empty());
    CHECK(names(answered_targets(ts, {}, 50, std::nullopt)).empty());
    CHECK(answered_targets({}, {}, 2000, std::nullopt).empty());
}

TEST_CASE("discover: JSON document")
{
    std::vector<Target> ts = {target(1, 2, 10, {{"a0", 10}}), target(0, 1, 20, {})};
    auto answered = answered_targets(ts, {"e1.2"}, 2000, std::nullopt);
    Json j = discover_json(answered, {"e1.2"}, 2013);
    REQUIRE(j["targets"].size() == 2);
    CHECK(j["targets"][0]["device"] == "e0.1");
    CHECK(j["targets"][1] == to_json(ts[0]));
    CHECK(j["new"] == Json::array({"e1.2"}));
    CHECK(j["waited_ms"] == 2013);
    CHECK(discover_json({}, {}, 0).dump() == R"({"targets":[],"new":[],"waited_ms":0})");
}
