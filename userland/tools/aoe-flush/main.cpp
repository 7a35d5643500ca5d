// aoe-flush: make the aoe module forget targets that are down (or, with -a,
// also up) and not open. See man/aoe-flush.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "stat/format.hpp"
#include "core/netlink.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-flush", "[-a] [--json] [-v] [DEVICE...]",
                        "Make the aoe module forget targets that are down and not open (as\n"
                        "aoetools' aoe-flush). -a also forgets targets that are up but not open.\n"
                        "DEVICE (eS.L or /dev/etherd/eS.L): forget those targets, up or down.\n"
                        "Needs CAP_NET_ADMIN. Lists the targets that were forgotten.");
    bool all = false;
    bool json = false;
    std::vector<std::string> devices;
    tool.options().add_options()
        ("all,a", po::bool_switch(&all), "also forget targets that are up (not open ones)")
        ("json", po::bool_switch(&json), "print JSON");
    tool.hidden().add_options()("device", po::value(&devices)->multitoken());
    tool.positional().add("device", -1);

    return tool.run(argc, argv, [&] {
        std::vector<aoe::DeviceAddr> addrs;
        for (const auto& d : devices)
            addrs.push_back(aoe::parse_device(d));  // all checked before anything changes

        aoe::Client client(aoe::Autoload::kYes);  // changes state: may load aoe.ko
        std::set<std::string> before;
        for (const auto& t : client.get_targets())
            before.insert(t.device);
        std::vector<std::string> missing;
        for (const auto& a : addrs)
            if (!before.count(aoe::device_name(a.shelf, a.slot)))
                missing.push_back(aoe::device_name(a.shelf, a.slot));

        if (addrs.empty()) {
            client.command(aoe::build_flush(client.family(), all, std::nullopt).get(),
                           all ? "flushing every target not open" : "flushing targets that are down");
        } else {
            // A named target goes even when up, as with /dev/etherd/flush and
            // aoetools (only open ones stay).
            for (const auto& a : addrs)
                client.command(aoe::build_flush(client.family(), true, a).get(),
                               fmt::format("flushing {}", aoe::device_name(a.shelf, a.slot)));
        }
        std::set<std::string> after;
        for (const auto& t : client.get_targets())
            after.insert(t.device);
        std::vector<std::string> flushed, kept;
        for (const auto& d : before)
            if (!after.count(d))
                flushed.push_back(d);
        for (const auto& a : addrs) {
            std::string d = aoe::device_name(a.shelf, a.slot);
            if (after.count(d))
                kept.push_back(d);
        }
        if (json) {
            aoe::Json j = {{"flushed", flushed}, {"kept", kept}, {"unknown", missing}};
            std::cout << aoe::dump_json(j) << '\n';
        } else {
            for (const auto& d : flushed)
                std::cout << fmt::format("{}: flushed\n", d);
            for (const auto& d : kept)
                std::cout << fmt::format("{}: kept (open)\n", d);
            for (const auto& d : missing)
                std::cerr << fmt::format("aoe-flush: {}: no such target\n", d);
        }
        return missing.empty() ? aoe::cli::kOk : aoe::cli::kFailure;
    });
}
