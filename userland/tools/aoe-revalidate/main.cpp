// aoe-revalidate: ask the aoe module to re-read a target's capacity. See
// man/aoe-revalidate.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include <netlink/errno.h>

#include "core/error.hpp"
#include "stat/format.hpp"
#include "core/netlink.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-revalidate", "[--json] [-v] [--flush MODE] DEVICE",
                        "Ask the aoe module to query DEVICE (eS.L or /dev/etherd/eS.L) again\n"
                        "and re-read its capacity, e.g. after the exported file grew. With\n"
                        "--flush, set DEVICE's flush mode instead (auto, always, never, or\n"
                        "default: follow the module's aoe_flush). Needs CAP_NET_ADMIN.");
    bool json = false;
    std::string device;
    std::string flush;
    tool.options().add_options()("json", po::bool_switch(&json), "print JSON")(
        "flush", po::value(&flush),
        "set the flush mode: auto|always|never|default (see aoe(4), aoe_flush)");
    tool.hidden().add_options()("device", po::value(&device));
    tool.positional().add("device", 1);

    return tool.run(argc, argv, [&] {
        if (device.empty())
            throw aoe::UsageError("name the device to revalidate (eS.L, e.g. e1.2)");
        aoe::DeviceAddr a = aoe::parse_device(device);
        std::string name = aoe::device_name(a.shelf, a.slot);
        std::optional<uint32_t> mode;
        if (!flush.empty()) {
            mode = aoe::parse_flush_mode(flush);
            if (!mode)
                throw aoe::UsageError(fmt::format(
                    "--flush {}: not a flush mode (auto, always, never, default)", flush));
        }
        aoe::Client client(aoe::Autoload::kYes);  // changes state: may load aoe.ko
        try {
            if (mode)
                client.command(aoe::build_set_flush_mode(client.family(), a, *mode).get(),
                               fmt::format("setting the flush mode of {}", name));
            else
                client.command(aoe::build_revalidate(client.family(), a).get(),
                               fmt::format("revalidating {}", name));
        } catch (const aoe::NetlinkError& e) {
            if (e.nl_error() == -NLE_OBJ_NOTFOUND)
                throw aoe::Error(fmt::format("{}: no such target (see aoe-stat)", name));
            throw;
        }
        std::optional<aoe::Target> t = client.get_target(a.shelf, a.slot);
        if (json) {
            std::cout << aoe::dump_json(t ? aoe::to_json(*t) : aoe::Json(nullptr)) << '\n';
        } else if (t && mode) {
            std::cout << fmt::format("{}: flush mode {}\n", name, aoe::flush_mode_name(*mode));
        } else if (t) {
            std::cout << fmt::format("{}: revalidation requested; size now {} ({})\n", name,
                                     aoe::format_size_aoetools(t->sectors),
                                     aoe::target_state_text(*t));
        }
        return aoe::cli::kOk;
    });
}
