// aoe-discover: ask the aoe module to broadcast a Query Config, wait for the
// answers and list the targets that answered. See man/aoe-discover.8.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "aoe_netlink.h"
#include "cli.hpp"
#include "discover.hpp"
#include "error.hpp"
#include "format.hpp"
#include "log.hpp"
#include "netlink.hpp"

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

namespace {

std::string interfaces_tried(aoe::Client& client, const std::optional<std::string>& iface)
{
    if (iface)
        return *iface;
    std::vector<std::string> up;
    for (const auto& i : client.get_info().interfaces)
        if (i.up)
            up.push_back(i.name);
    return up.empty() ? std::string("no interface (none is up and allowed by aoe_iflist)")
                      : fmt::format("{}", fmt::join(up, ", "));
}

}  // namespace

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-discover", "[-w SECONDS] [-i IFACE] [--json] [-v]",
                        "Ask the aoe module to discover ATA over Ethernet targets (a Query Config\n"
                        "broadcast), wait for the answers and list the targets that answered.\n"
                        "Needs CAP_NET_ADMIN.");
    double wait_s = 2.0;
    std::string iface_arg;
    bool json = false;
    tool.options().add_options()
        ("wait,w", po::value(&wait_s)->value_name("SECONDS"),
         "wait this long for answers (default 2; 0: only trigger)")
        ("interface,i", po::value(&iface_arg)->value_name("IFACE"),
         "broadcast on this interface only")
        ("json", po::bool_switch(&json), "print JSON");

    return tool.run(argc, argv, [&] {
        if (!std::isfinite(wait_s) || wait_s < 0 || wait_s > 3600)
            throw aoe::UsageError(fmt::format("-w wants seconds from 0 to 3600, not {}", wait_s));
        std::optional<std::string> iface;
        if (!iface_arg.empty())
            iface = iface_arg;
        auto wait = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(wait_s));

        aoe::Client client;
        // Subscribe before asking, so that no answer comes before we listen.
        std::optional<aoe::EventListener> events;
        if (wait.count() > 0)
            events.emplace();
        auto start = Clock::now();
        client.discover(iface);

        std::set<std::string> fresh;
        if (events)
            events->wait_events(start + wait, [&](const aoe::Event& e) {
                if (e.cmd == AOE_CMD_TARGET_NEW) {
                    aoe::log::info("new target {}", e.target.device);
                    fresh.insert(e.target.device);
                }
                return true;
            });
        std::vector<aoe::Target> targets;
        if (events)
            targets = client.get_targets();
        auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
        auto elapsed_ms = static_cast<uint64_t>(elapsed.count());

        std::vector<const aoe::Target*> found =
            aoe::answered_targets(targets, fresh, elapsed_ms, iface);

        if (json) {
            std::cout << aoe::dump_json(aoe::discover_json(found, fresh, events ? elapsed_ms : 0))
                      << '\n';
        } else {
            for (const auto* t : found)
                std::cout << aoe::discover_line(*t, fresh.count(t->device) > 0) << '\n';
        }
        if (!events) {
            aoe::log::info("discovery triggered, not waiting (-w 0)");
            return aoe::cli::kOk;
        }
        if (found.empty()) {
            std::cerr << fmt::format("aoe-discover: no AoE target answered within {} s on {}\n",
                                     wait_s, interfaces_tried(client, iface));
            return aoe::cli::kFailure;
        }
        return aoe::cli::kOk;
    });
}
