// aoe-discover: ask the aoe module to broadcast a Query Config, wait for the
// answers and list the targets that answered; or, with --probe, find the
// targets and measure every path over raw sockets, without the module.
// See man/aoe-discover.8.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "aoe_netlink.h"
#include "core/cli.hpp"
#include "probe/discover.hpp"
#include "core/error.hpp"
#include "stat/format.hpp"
#include "core/log.hpp"
#include "core/netlink.hpp"
#include "probe/probe.hpp"
#include "probe/probe_net.hpp"

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

// aoe-discover --probe: exit 0 clean, 3 problems found (advice), 1 no target
// answered or the probe could not run (thrown: Tool::run says why).
int probe_main(const std::vector<std::string>& names, std::optional<double> wait_s, bool json)
{
    namespace pr = aoe::probe;
    {
        auto ifaces = pr::select_interfaces(pr::list_interfaces(), names);
        pr::Options opts;
        if (wait_s)
            opts.wait = std::chrono::milliseconds(static_cast<int64_t>(*wait_s * 1000));
        auto r = pr::run(ifaces, opts);
        auto advice = pr::advise(r.targets);
        int rc = pr::exit_status(r.targets, advice);
        if (json)
            std::cout << aoe::dump_json(pr::to_json(ifaces, r.targets, advice, r.waited_ms))
                      << '\n';
        else if (!r.targets.empty())
            std::cout << pr::format_report(r.targets, advice);
        if (r.targets.empty()) {
            std::vector<std::string> tried;
            for (const auto& i : ifaces)
                tried.push_back(i.name);
            std::cerr << fmt::format(
                "aoe-discover: no AoE target answered a Query Config within {} ms on {}\n",
                r.waited_ms, fmt::join(tried, ", "));
        }
        return rc;
    }
}

}  // namespace

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-discover",
                        "[-w SECONDS] [-i IFACE] [--json] [-v]\n"
                        "       aoe-discover --probe [-w SECONDS] [--json] [-v] [IFACE...]",
                        "Ask the aoe module to discover ATA over Ethernet targets (a Query Config\n"
                        "broadcast), wait for the answers and list the targets that answered.\n"
                        "Needs CAP_NET_ADMIN.\n"
                        "With --probe, find the targets over raw sockets instead (no module needed),\n"
                        "measure the payload every path really carries and say what to fix.\n"
                        "Needs CAP_NET_RAW. Exit 0 clean, 1 warnings, 2 errors.");
    std::optional<double> wait_opt;
    std::string iface_arg;
    std::vector<std::string> probe_ifaces;
    bool json = false;
    bool probe = false;
    tool.options().add_options()
        ("wait,w",
         po::value<double>()->value_name("SECONDS")->notifier([&](double v) { wait_opt = v; }),
         "wait this long for answers (default 2; 0: only trigger); with --probe, "
         "give up after this long (default 5)")
        ("interface,i", po::value(&iface_arg)->value_name("IFACE"),
         "broadcast on this interface only")
        ("json", po::bool_switch(&json), "print JSON")
        ("probe", po::bool_switch(&probe),
         "find targets and measure each path over raw sockets on IFACE... (default: every "
         "up Ethernet interface), without the module");
    tool.hidden().add_options()
        ("iface", po::value(&probe_ifaces), "interfaces for --probe");
    tool.positional().add("iface", -1);

    return tool.run(argc, argv, [&]() -> int {
        double wait_s = wait_opt.value_or(2.0);
        if (probe) {
            if (wait_opt && (!std::isfinite(*wait_opt) || *wait_opt <= 0 || *wait_opt > 3600))
                throw aoe::UsageError(fmt::format(
                    "-w with --probe wants seconds above 0 and up to 3600, not {}", *wait_opt));
            if (!iface_arg.empty())
                probe_ifaces.insert(probe_ifaces.begin(), iface_arg);
            return probe_main(probe_ifaces, wait_opt, json);
        }
        if (!probe_ifaces.empty())
            throw aoe::UsageError(fmt::format(
                "interface names as arguments need --probe (or use -i {})", probe_ifaces[0]));
        if (!std::isfinite(wait_s) || wait_s < 0 || wait_s > 3600)
            throw aoe::UsageError(fmt::format("-w wants seconds from 0 to 3600, not {}", wait_s));
        std::optional<std::string> iface;
        if (!iface_arg.empty())
            iface = iface_arg;
        auto wait = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(wait_s));

        aoe::Client client(aoe::Autoload::kYes);  // changes state: may load aoe.ko
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
