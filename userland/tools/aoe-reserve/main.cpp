// aoe-reserve: read, take or release a target's reservation (AoE r11
// Reserve/Release: the initiators whose I/O it accepts), through the aoe
// module or raw sockets. See man/aoe-reserve.8.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "ctl/ctl.hpp"
#include "ctl/ctl_net.hpp"

namespace po = boost::program_options;

namespace {

std::vector<aoe::Mac> macs_of(const std::vector<std::string>& args)
{
    std::vector<aoe::Mac> out;
    for (const auto& a : args) {
        std::stringstream ss(a);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty())
                out.push_back(aoe::ctl::parse_mac(item));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-reserve",
                        "DEVICE [--reserve [MAC...] | --release] [--force] [--json] [--raw] "
                        "[-i IFACE]... [-t MS]",
                        "Read a target's reserve list, or reserve it (for this host's MACs on\n"
                        "its paths, or the MACs given) or release it. While reserved, the target\n"
                        "refuses I/O from other initiators (AoE error 6). --force takes over or\n"
                        "releases another initiator's reservation. Goes through the aoe module\n"
                        "(CAP_NET_ADMIN); raw sockets when it is not loaded or with --raw.\n"
                        "After a change the list is read back: exit 0 when every target port\n"
                        "holds the wanted list, 3 when only some do, 1 when none.");
    std::string device;
    std::vector<std::string> reserve;
    bool release = false, force = false, json = false;
    aoe::ctl::NetOptions net;
    unsigned timeout = AOE_CTL_TIMEOUT_MS_DEFAULT;
    tool.options().add_options()
        ("reserve", po::value(&reserve)->multitoken()->zero_tokens(),
         "reserve for MAC... (after DEVICE), default: this host's MACs on the target's paths")
        ("release", po::bool_switch(&release), "release the reservation")
        ("force", po::bool_switch(&force), "even when another initiator holds it")
        ("json", po::bool_switch(&json), "print JSON")
        ("raw", po::bool_switch(&net.raw), "use raw sockets even with the module loaded")
        ("interface,i", po::value(&net.interfaces)->composing(),
         "raw sockets: only this interface (repeatable)")
        ("timeout,t", po::value(&timeout), "wait at most MS milliseconds for answers (100..10000)");
    tool.hidden().add_options()("device", po::value(&device)->required());
    tool.positional().add("device", 1);

    return tool.run(argc, argv, [&]() -> int {
        auto addr = aoe::parse_device(device);
        if (timeout < AOE_CTL_TIMEOUT_MS_MIN || timeout > AOE_CTL_TIMEOUT_MS_MAX)
            throw aoe::UsageError("--timeout: 100..10000 ms");
        // --reserve with no MAC is zero tokens: tell it from absent by the count
        bool reserving = false;
        for (int i = 1; i < argc; i++)
            if (std::string(argv[i]) == "--reserve" || std::string(argv[i]).rfind("--reserve=", 0) == 0)
                reserving = true;
        if (reserving && release)
            throw aoe::UsageError("--reserve or --release, not both");
        if (force && !reserving && !release)
            throw aoe::UsageError("--force goes with --reserve or --release");
        aoe::ctl::Request read;
        read.shelf = addr.shelf;
        read.slot = addr.slot;
        read.cmd = AOE_CMD_RESERVE;
        read.timeout = std::chrono::milliseconds(timeout);

        if (!reserving && !release) {
            aoe::ctl::Result r = aoe::ctl::run(read, net);
            if (json)
                std::cout << aoe::dump_json(aoe::ctl::to_json(read, r)) << '\n';
            else
                std::cout << aoe::ctl::format_text(read, r);
            std::vector<bool> ok;
            for (const auto& p : r.paths)
                ok.push_back(aoe::ctl::path_ok(read, p));
            return aoe::ctl::change_exit_status(ok);
        }

        std::vector<aoe::Mac> wanted;
        if (reserving) {
            wanted = macs_of(reserve);
            if (wanted.empty()) {
                // this host's MACs on the target's paths: what a read used
                aoe::ctl::Result r = aoe::ctl::run(read, net);
                for (const auto& p : r.paths)
                    if (std::find(wanted.begin(), wanted.end(), p.src) == wanted.end())
                        wanted.push_back(p.src);
                if (wanted.empty())
                    throw aoe::Error(fmt::format("{}: no path to take the MACs from", device));
            }
        }
        aoe::ctl::Request change = read;
        change.sub = force ? AOE_RCMD_FORCE : AOE_RCMD_SET;
        change.data = aoe::ctl::mac_data(wanted);
        aoe::ctl::Result done = aoe::ctl::run(change, net);
        // Read back: a retried set whose first copy was taken is refused by
        // the target (the sender may not be in the new list), so the answer
        // to the set alone does not say what the target holds.
        aoe::ctl::Result back = aoe::ctl::run(read, net);
        auto outcomes = aoe::ctl::reserve_outcomes(back, wanted);
        std::vector<bool> took;
        for (const auto& o : outcomes)
            took.push_back(o.took);
        if (json) {
            aoe::Json j = aoe::ctl::to_json(change, done);
            j["wanted"] = aoe::Json::array();
            for (const auto& m : wanted)
                j["wanted"].push_back(aoe::format_mac(m));
            aoe::Json ports = aoe::Json::array();
            for (const auto& o : outcomes)
                ports.push_back({{"target_mac", aoe::format_mac(o.port)},
                                 {"interface", o.ifname},
                                 {"took", o.took},
                                 {"why", o.took ? aoe::Json(nullptr) : aoe::Json(o.why)}});
            j["ports"] = ports;
            std::cout << aoe::dump_json(j) << '\n';
        } else {
            std::cout << aoe::ctl::format_text(change, done);
            for (const auto& o : outcomes)
                std::cout << fmt::format("{} port {}: {}\n", aoe::device_name(addr.shelf, addr.slot),
                                         aoe::format_mac(o.port),
                                         o.took ? (release ? "released"
                                                           : "reserved for " + aoe::ctl::mac_list(wanted))
                                                : "not changed: " + o.why);
        }
        return aoe::ctl::change_exit_status(took);
    });
}
