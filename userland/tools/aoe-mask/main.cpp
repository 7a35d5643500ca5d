// aoe-mask: read or edit a target's MAC Mask List (AoE r11 command 2), the
// initiators it answers, through the aoe module or raw sockets. See
// man/aoe-mask.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/log.hpp"
#include "ctl/ctl.hpp"
#include "ctl/ctl_net.hpp"

namespace po = boost::program_options;

namespace {

// "a,b" and repeated options -> MACs
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
    aoe::cli::Tool tool("aoe-mask",
                        "DEVICE [--add MAC]... [--del MAC]... [--set MAC...] [--json] [--raw] "
                        "[-i IFACE]... [-t MS]",
                        "Read a target's MAC Mask List (the initiators it answers; empty: all),\n"
                        "or edit it. Goes through the aoe module (CAP_NET_ADMIN); raw sockets\n"
                        "when it is not loaded or with --raw (CAP_NET_RAW). A host left out of\n"
                        "a non-empty list no longer sees the target (not even to undo it).\n"
                        "Exit 0 when every target port did it, 3 when only some did, 1 when none.");
    std::string device;
    std::vector<std::string> add, del, set;
    bool json = false;
    aoe::ctl::NetOptions net;
    unsigned timeout = AOE_CTL_TIMEOUT_MS_DEFAULT;
    tool.options().add_options()
        ("add", po::value(&add)->composing(), "add MAC (repeatable, or MAC,MAC)")
        ("del", po::value(&del)->composing(), "delete MAC (repeatable, or MAC,MAC)")
        ("set", po::value(&set)->multitoken(), "make the list exactly MAC... (after DEVICE)")
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
        if (!set.empty() && (!add.empty() || !del.empty()))
            throw aoe::UsageError("--set replaces the list: not with --add or --del");
        aoe::ctl::Request req;
        req.shelf = addr.shelf;
        req.slot = addr.slot;
        req.cmd = AOE_CMD_MASK;
        req.timeout = std::chrono::milliseconds(timeout);

        std::vector<aoe::ctl::Edit> edits;
        for (const auto& m : macs_of(del))
            edits.emplace_back(AOE_DCMD_DEL, m);
        for (const auto& m : macs_of(add))
            edits.emplace_back(AOE_DCMD_ADD, m);
        if (!set.empty()) {
            auto wanted = macs_of(set);
            // what the ports have now: every MAC any of them lists
            aoe::ctl::Result now = aoe::ctl::run(req, net);
            std::vector<aoe::Mac> current;
            bool any = false;
            for (const auto& p : now.paths)
                if (aoe::ctl::path_ok(req, p)) {
                    any = true;
                    for (const auto& m : p.macs)
                        if (std::find(current.begin(), current.end(), m) == current.end())
                            current.push_back(m);
                }
            if (!any)
                throw aoe::Error(fmt::format("{}: reading the mask list failed on every path: {}",
                                             device,
                                             now.paths.empty() ? "no path"
                                                               : aoe::ctl::describe(req, now.paths[0])));
            edits = aoe::ctl::mask_set_edits(current, wanted);
            if (edits.empty()) {
                aoe::log::info("the mask list is already {}", aoe::ctl::mac_list(wanted));
                req.sub = AOE_MCMD_READ;
            }
        }
        if (!edits.empty()) {
            aoe::ctl::check_edits(edits);
            req.sub = AOE_MCMD_EDIT;
            req.data = aoe::ctl::mask_directives(edits);
        }
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
