// aoe-stat: the AoE targets the aoe module knows, in aoetools' aoe-stat
// layout (or JSON with --json, Prometheus text with --prometheus). See
// man/aoe-stat.8.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cli.hpp"
#include "core/error.hpp"
#include "stat/format.hpp"
#include "core/log.hpp"
#include "core/netlink.hpp"
#include "stat/prometheus.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-stat", "[-a] [-x] [--json | --prometheus | --monitor [--json]] [-v] [REGEX]",
                        "Show the ATA over Ethernet targets the aoe module knows: device, size,\n"
                        "interfaces, payload and state, as aoetools' aoe-stat. REGEX (a grep\n"
                        "basic regular expression) keeps only the rows it matches.");
    bool all = false;
    bool extended = false;
    bool json = false;
    bool prometheus = false;
    bool monitor = false;
    std::string pattern;
    tool.options().add_options()
        ("all,a", po::bool_switch(&all), "also show every path and the module summary")
        ("extended,x", po::bool_switch(&extended),
         "extended columns: paths up/total, RTT, window/outstanding, retransmits, bytes")
        ("json", po::bool_switch(&json), "print JSON (schema in aoe-stat(8))")
        ("prometheus", po::bool_switch(&prometheus),
         "print Prometheus text exposition (metrics in aoe-stat(8))")
        ("monitor", po::bool_switch(&monitor),
         "print the module's events as they come, one line each (with --json one JSON object\n"
         "per line), until interrupted");
    tool.hidden().add_options()("regex", po::value(&pattern));
    tool.positional().add("regex", 1);

    return tool.run(argc, argv, [&] {
        if (json && prometheus)
            throw aoe::UsageError("--json and --prometheus exclude each other");
        std::function<bool(const std::string&)> match;
        if (!pattern.empty())
            match = aoe::grep_matcher(pattern);  // a bad pattern is a usage error

        if (monitor) {
            if (prometheus || all || extended)
                throw aoe::UsageError("--monitor takes only --json and REGEX");
            aoe::EventListener events;
            events.wait_events(std::chrono::steady_clock::time_point::max(),
                               [&](const aoe::Event& e) {
                                   if (match && !match(e.target.device))
                                       return true;
                                   if (json) {
                                       aoe::Json j = aoe::Json::object();
                                       j["event"] = aoe::event_name(e.cmd);
                                       j["target"] = aoe::to_json(e.target);
                                       std::cout << j.dump() << std::endl;
                                   } else {
                                       std::cout << aoe::event_line(e) << std::endl;
                                   }
                                   return true;
                               });
            return aoe::cli::kOk;
        }

        if (prometheus) {
            // For the textfile collector: a module that is not loaded is a
            // metric (aoe_up 0), not an error.
            std::optional<aoe::Client> client;
            try {
                client.emplace();
            } catch (const aoe::ModuleNotLoaded&) {
                std::cout << aoe::format_prometheus(nullptr, {});
                return aoe::cli::kOk;
            }
            std::vector<aoe::Target> targets = client->get_targets();
            aoe::ModuleInfo info = client->get_info();
            if (match) {
                std::vector<aoe::Target> kept;
                for (const auto& r : aoe::filter_rows(aoe::stat_rows(targets), match))
                    kept.push_back(*r.target);
                targets = std::move(kept);
            }
            std::cout << aoe::format_prometheus(&info, targets);
            return aoe::cli::kOk;
        }

        aoe::Client client;
        std::vector<aoe::Target> targets = client.get_targets();
        aoe::log::info("{} targets", targets.size());
        std::vector<aoe::StatRow> rows = aoe::stat_rows(targets);
        if (match)
            rows = aoe::filter_rows(std::move(rows), match);

        if (json) {
            aoe::Json doc = aoe::Json::object();
            doc["module"] = aoe::to_json(client.get_info());
            aoe::Json list = aoe::Json::array();
            for (const auto& r : rows)
                list.push_back(aoe::to_json(*r.target));
            doc["targets"] = std::move(list);
            std::cout << aoe::dump_json(doc) << '\n';
        } else {
            std::optional<aoe::ModuleInfo> info;
            if (all)
                info = client.get_info();
            if (extended)
                std::cout << aoe::stat_extended_header() << '\n';
            for (const auto& r : rows) {
                std::cout << r.text;
                if (extended)
                    std::cout << ' ' << aoe::stat_extended_columns(*r.target);
                std::cout << '\n';
                if (all) {
                    std::cout << aoe::cache_line(*r.target, info->flush_mode) << '\n';
                    for (const auto& line : aoe::identity_lines(*r.target))
                        std::cout << line << '\n';
                    for (const auto& line : aoe::path_lines(*r.target))
                        std::cout << line << '\n';
                    if (auto f = aoe::fence_line(*r.target))
                        std::cout << *f << '\n';
                    if (auto f = aoe::reserve_line(*r.target))
                        std::cout << *f << '\n';
                    if (auto f = aoe::policy_line(*r.target))
                        std::cout << *f << '\n';
                }
            }
            if (all)
                std::cout << '\n' << aoe::format_info_text(*info);
        }
        // As aoetools (whose table ends in grep): nothing listed is exit 1;
        // for scripts, --json with no target is an empty list and exit 0.
        return rows.empty() && !json ? aoe::cli::kFailure : aoe::cli::kOk;
    });
}
