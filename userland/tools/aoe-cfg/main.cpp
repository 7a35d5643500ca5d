// aoe-cfg: read, test or set a target's config string (AoE Query Config),
// through the aoe module or raw sockets. See man/aoe-cfg.8.
#include <iostream>
#include <nlohmann/json.hpp>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "ctl/ctl.hpp"
#include "ctl/ctl_net.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-cfg",
                        "[--set STR | --force-set STR | --test STR | --prefix-test STR] [--json] "
                        "[--raw] [-i IFACE]... [-t MS] DEVICE",
                        "Read a target's config string (AoE Query Config), or test or set it, as\n"
                        "aoetools' aoecfg. Goes through the aoe module (CAP_NET_ADMIN); raw\n"
                        "sockets when it is not loaded or with --raw (CAP_NET_RAW). Exit 0 when\n"
                        "every path did it, 3 when only some did, 1 when none.");
    std::string device;
    // (sub-command, string) of each of --set/--force-set/--test/--prefix-test given
    std::vector<std::pair<uint8_t, std::string>> chosen;
    auto sub = [&](uint8_t c) {
        return po::value<std::string>()->notifier(
            [&chosen, c](const std::string& v) { chosen.emplace_back(c, v); });
    };
    bool json = false;
    aoe::ctl::NetOptions net;
    unsigned timeout = AOE_CTL_TIMEOUT_MS_DEFAULT;
    tool.options().add_options()
        ("set", sub(AOE_CCMD_SET), "set the config string if the target has none or has this one")
        ("force-set", sub(AOE_CCMD_FSET), "set the config string whatever it is")
        ("test", sub(AOE_CCMD_TEST), "does the config string equal STR?")
        ("prefix-test", sub(AOE_CCMD_PTEST), "does the config string begin with STR?")
        ("json", po::bool_switch(&json), "print JSON")
        ("raw", po::bool_switch(&net.raw), "use raw sockets even with the module loaded")
        ("interface,i", po::value(&net.interfaces)->composing(),
         "raw sockets: only this interface (repeatable)")
        ("timeout,t", po::value(&timeout), "wait at most MS milliseconds for answers (100..10000)");
    tool.hidden().add_options()("device", po::value(&device)->required());
    tool.positional().add("device", 1);

    return tool.run(argc, argv, [&]() -> int {
        auto addr = aoe::parse_device(device);
        aoe::ctl::Request req;
        req.shelf = addr.shelf;
        req.slot = addr.slot;
        req.cmd = AOE_CMD_CFG;
        if (chosen.size() > 1)
            throw aoe::UsageError("give one of --set, --force-set, --test, --prefix-test");
        if (!chosen.empty()) {
            req.sub = chosen[0].first;
            req.data = aoe::ctl::config_data(chosen[0].second);
        }
        if (timeout < AOE_CTL_TIMEOUT_MS_MIN || timeout > AOE_CTL_TIMEOUT_MS_MAX)
            throw aoe::UsageError("--timeout: 100..10000 ms");
        req.timeout = std::chrono::milliseconds(timeout);
        aoe::ctl::Result r = aoe::ctl::run(req, net);
        if (json)
            std::cout << aoe::dump_json(aoe::ctl::to_json(req, r)) << '\n';
        else
            std::cout << aoe::ctl::format_text(req, r);
        std::vector<bool> ok;
        for (const auto& p : r.paths)
            ok.push_back(aoe::ctl::path_ok(req, p));
        return aoe::ctl::change_exit_status(ok);
    });
}
