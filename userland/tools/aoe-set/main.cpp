// aoe-set: show or change a target's settings in the aoe module: its
// failure policy (deadsecs, fast-fail) and flush mode. See man/aoe-set.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <netlink/errno.h>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/netlink.hpp"
#include "stat/format.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool(
        "aoe-set",
        "[--json] [-v] DEVICE [deadsecs N|default] [fast-fail N|off|default] [flush MODE]",
        "Show DEVICE's (eS.L) failure policy, or change it: deadsecs (seconds\n"
        "without an answer before the target is failed, 1..86400; default:\n"
        "the module's aoe_deadsecs), fast-fail (seconds its I/O waits while no\n"
        "path is usable before it fails, 0 or off, 1..86400; default: the\n"
        "module's aoe_fast_fail) and flush (auto, always, never, default). See\n"
        "aoe(4). Changing needs CAP_NET_ADMIN; a setting lasts as long as the\n"
        "module knows the target.");
    bool json = false;
    std::string device;
    std::vector<std::string> words;
    tool.options().add_options()("json", po::bool_switch(&json), "print JSON");
    tool.hidden().add_options()("device", po::value(&device))(
        "setting", po::value(&words)->multitoken());
    tool.positional().add("device", 1).add("setting", -1);

    return tool.run(argc, argv, [&] {
        if (device.empty())
            throw aoe::UsageError("name the device (eS.L, e.g. e1.2)");
        aoe::DeviceAddr a = aoe::parse_device(device);
        aoe::TargetSettings s = aoe::parse_target_settings(words);
        std::string name = aoe::device_name(a.shelf, a.slot);
        // showing never loads the module; a change may
        aoe::Client client(s.empty() ? aoe::Autoload::kNo : aoe::Autoload::kYes);
        if (!s.empty()) {
            try {
                client.command(aoe::build_set_target(client.family(), a, s).get(),
                               fmt::format("changing the settings of {}", name));
            } catch (const aoe::NetlinkError& e) {
                if (e.nl_error() == -NLE_OBJ_NOTFOUND)
                    throw aoe::Error(fmt::format("{}: no such target (see aoe-stat)", name));
                throw;
            }
        }
        std::optional<aoe::Target> t = client.get_target(a.shelf, a.slot);
        if (!t)
            throw aoe::Error(fmt::format("{}: no such target (see aoe-stat)", name));
        if (json) {
            aoe::Json j = aoe::Json::object();
            j["device"] = t->device;
            j["policy"] = aoe::policy_json(*t);
            j["flush_mode"] = t->flush_mode ? aoe::Json(aoe::flush_mode_name(*t->flush_mode))
                                            : aoe::Json(nullptr);
            std::cout << aoe::dump_json(j) << '\n';
            return aoe::cli::kOk;
        }
        std::optional<std::string> line = aoe::policy_line(*t);
        if (!line)
            throw aoe::Error(fmt::format(
                "{}: the loaded aoe module has no failure policy per target (too old?)", name));
        // "e1.2 deadsecs 30 (module) fast-fail off (module) fast_fails 0"
        std::cout << name << ' ' << line->substr(line->find("deadsecs")) << '\n';
        return aoe::cli::kOk;
    });
}
