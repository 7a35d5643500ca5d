// aoe-interfaces: show or set the interfaces the aoe module may use
// (aoe_iflist). See man/aoe-interfaces.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "stat/format.hpp"
#include "core/netlink.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-interfaces", "[-c] [--json] [-v] [IFACE...]",
                        "Without arguments, show the interfaces the aoe module may use (the\n"
                        "aoe_iflist parameter; \"all\" when it is empty) and those AoE runs on.\n"
                        "With IFACE arguments, allow only those; -c allows every interface again.\n"
                        "Changing the list needs CAP_NET_ADMIN and starts a discovery.");
    bool clear = false;
    bool json = false;
    std::vector<std::string> ifaces;
    tool.options().add_options()
        ("clear,c", po::bool_switch(&clear), "allow every interface (empty aoe_iflist)")
        ("json", po::bool_switch(&json), "print JSON");
    tool.hidden().add_options()("iface", po::value(&ifaces)->multitoken());
    tool.positional().add("iface", -1);

    return tool.run(argc, argv, [&] {
        if (clear && !ifaces.empty())
            throw aoe::UsageError("-c clears the list: give either -c or interface names");
        std::optional<std::string> set;
        if (clear)
            set = std::string();
        else if (!ifaces.empty())
            set = aoe::join_iflist(ifaces);

        aoe::Client client(set ? aoe::Autoload::kYes : aoe::Autoload::kNo);
        if (set)
            client.command(aoe::build_set_interfaces(client.family(), *set).get(),
                           set->empty() ? std::string("allowing every interface")
                                        : fmt::format("setting the interface list to '{}'", *set));
        aoe::ModuleInfo info = client.get_info();
        std::string allowed = info.iflist.value_or("");
        if (json) {
            aoe::Json j = aoe::Json::object();
            j["iflist"] = allowed;
            j["all"] = allowed.empty();
            j["changed"] = set.has_value();
            aoe::Json ifs = aoe::Json::array();
            for (const auto& i : info.interfaces)
                ifs.push_back(aoe::to_json(i));
            j["interfaces"] = std::move(ifs);
            std::cout << aoe::dump_json(j) << '\n';
        } else {
            std::cout << "allowed: " << (allowed.empty() ? "all" : aoe::printable(allowed)) << '\n';
            std::vector<std::string> ifs;
            for (const auto& i : info.interfaces)
                ifs.push_back(fmt::format("{} ({}, mtu {})", i.name, i.up ? "up" : "down",
                                          i.mtu ? std::to_string(*i.mtu) : "-"));
            std::cout << "in use: " << (ifs.empty() ? "none" : fmt::format("{}", fmt::join(ifs, ", ")))
                      << '\n';
        }
        return aoe::cli::kOk;
    });
}
