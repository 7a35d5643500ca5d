// aoe-ping: is a target there, over which paths, how fast: Query Config
// probes per path (RTT min/avg/max), the config string and the IDENTIFY
// data, through the aoe module or raw sockets. See man/aoe-ping.8.
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/netlink.hpp"
#include "ctl/ctl.hpp"
#include "ctl/ctl_net.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-ping",
                        "[-c N] [--interval MS] [-t MS] [--json] [--raw] [-i IFACE]... DEVICE",
                        "Probe a target over each path (Query Config, like aoetools' aoeping but\n"
                        "per path): round-trip time min/avg/max over N probes, its config string,\n"
                        "buffer count and firmware, and its IDENTIFY data (model, serial,\n"
                        "firmware, size, LBA48, cache). Through the aoe module (CAP_NET_ADMIN),\n"
                        "raw sockets when it is not loaded or with --raw (CAP_NET_RAW).\n"
                        "Exit 0 when every probe was answered, 3 when some were lost, 1 when none.");
    std::string device;
    unsigned count = 3, interval = 200, timeout = 1000;
    bool json = false;
    aoe::ctl::NetOptions net;
    tool.options().add_options()
        ("count,c", po::value(&count), "probes per path (1..1000, default 3)")
        ("interval", po::value(&interval), "milliseconds between probes (default 200)")
        ("timeout,t", po::value(&timeout), "how long one probe waits, ms (100..10000, default 1000)")
        ("json", po::bool_switch(&json), "print JSON")
        ("raw", po::bool_switch(&net.raw), "use raw sockets even with the module loaded")
        ("interface,i", po::value(&net.interfaces)->composing(),
         "raw sockets: only this interface (repeatable)");
    tool.hidden().add_options()("device", po::value(&device)->required());
    tool.positional().add("device", 1);

    return tool.run(argc, argv, [&]() -> int {
        auto addr = aoe::parse_device(device);
        if (count < 1 || count > 1000)
            throw aoe::UsageError("--count: 1..1000");
        if (timeout < AOE_CTL_TIMEOUT_MS_MIN || timeout > AOE_CTL_TIMEOUT_MS_MAX)
            throw aoe::UsageError("--timeout: 100..10000 ms");
        if (!net.raw && !aoe::ctl::module_loaded())
            net.raw = true;
        aoe::ctl::Request req;
        req.shelf = addr.shelf;
        req.slot = addr.slot;
        req.cmd = AOE_CMD_CFG;
        req.timeout = std::chrono::milliseconds(timeout);
        aoe::ctl::PingReport rep;
        rep.shelf = addr.shelf;
        rep.slot = addr.slot;
        for (unsigned i = 0; i < count; i++) {
            if (i)
                std::this_thread::sleep_for(std::chrono::milliseconds(interval));
            try {
                aoe::ctl::ping_add(rep, aoe::ctl::run(req, net));
            } catch (const aoe::Error& e) {
                if (!net.raw)
                    throw;
                aoe::log::info("probe {}: {}", i + 1, e.what());
                aoe::ctl::ping_add(rep, aoe::ctl::Result{addr.shelf, addr.slot, req.cmd, 0, "raw", {}});
            }
        }
        if (net.raw) {
            if (auto id = aoe::ctl::raw_identify(addr.shelf, addr.slot, net, req.timeout))
                rep.id = aoe::ctl::identity_from(*id);
        } else {
            aoe::Client client;
            if (auto t = client.get_target(addr.shelf, addr.slot))
                rep.id = aoe::ctl::identity_from(*t);
        }
        if (json)
            std::cout << aoe::dump_json(aoe::ctl::ping_json(rep)) << '\n';
        else
            std::cout << aoe::ctl::ping_text(rep);
        return aoe::ctl::ping_exit_status(rep);
    });
}
