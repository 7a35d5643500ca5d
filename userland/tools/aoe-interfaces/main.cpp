// aoe-interfaces: show or set the interfaces the aoe module may use
// (aoe_iflist). See man/aoe-interfaces.8.
#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "stat/format.hpp"
#include "core/netlink.hpp"

namespace po = boost::program_options;

namespace {

// A network namespace by name (ip netns: /run/netns/NAME) or path
// (/proc/PID/ns/net), opened for AOE_A_NETNS_FD.
aoe::Fd open_netns(const std::string& ns)
{
    std::string path = ns.find('/') == std::string::npos ? "/run/netns/" + ns : ns;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw aoe::Error(fmt::format(
            "network namespace '{}': {}: {} (see ip netns list, or give a path such as "
            "/proc/PID/ns/net)",
            ns, path, std::strerror(errno)));
    return aoe::Fd(fd);
}

}  // namespace

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-interfaces", "[-c | --inherit] [--json] [-v] [-n NETNS] [IFACE...]",
                        "Without arguments, show the interfaces the aoe module may use (the\n"
                        "aoe_iflist parameter; \"all\" when it is empty) and those AoE runs on.\n"
                        "With IFACE arguments, allow only those; -c allows every interface again.\n"
                        "Other network namespaces AoE uses (aoe_netns=1) follow aoe_iflist until\n"
                        "given a list of their own: -n shows or sets that namespace's, --inherit\n"
                        "makes it follow aoe_iflist again. Changing a list, or naming a\n"
                        "namespace, needs CAP_NET_ADMIN; a change starts a discovery there.");
    bool clear = false;
    bool inherit = false;
    bool json = false;
    std::string netns;
    std::vector<std::string> ifaces;
    tool.options().add_options()
        ("clear,c", po::bool_switch(&clear), "allow every interface (empty aoe_iflist)")
        ("inherit", po::bool_switch(&inherit),
         "with -n: the namespace follows the initial one's aoe_iflist again")
        ("json", po::bool_switch(&json), "print JSON")
        ("netns,n", po::value(&netns)->value_name("NETNS"),
         "the list of that network namespace (a name of ip netns, or a path such as "
         "/proc/PID/ns/net) instead of the initial one's");
    tool.hidden().add_options()("iface", po::value(&ifaces)->multitoken());
    tool.positional().add("iface", -1);

    return tool.run(argc, argv, [&] {
        if (clear && !ifaces.empty())
            throw aoe::UsageError("-c clears the list: give either -c or interface names");
        bool named = tool.vm().count("netns") > 0;
        if (named && netns.empty())
            throw aoe::UsageError("-n needs a network namespace name or path");
        if (inherit && !named)
            throw aoe::UsageError("--inherit needs -n NETNS: the initial namespace's list is aoe_iflist");
        if (inherit && (clear || !ifaces.empty()))
            throw aoe::UsageError("--inherit takes no list: give either --inherit, -c or interface names");
        std::optional<std::string> set;
        if (clear)
            set = std::string();
        else if (!ifaces.empty())
            set = aoe::join_iflist(ifaces);

        aoe::Fd ns;
        std::optional<int> ns_fd;
        if (!netns.empty()) {
            ns = open_netns(netns);
            ns_fd = ns.get();
        }
        std::string where = netns.empty() ? std::string() : fmt::format(" of network namespace {}", netns);
        aoe::Client client(set || inherit ? aoe::Autoload::kYes : aoe::Autoload::kNo);
        if (inherit)
            client.command(aoe::build_inherit_interfaces(client.family(), *ns_fd).get(),
                           fmt::format("making network namespace {} follow aoe_iflist", netns));
        if (set)
            client.command(aoe::build_set_interfaces(client.family(), *set, ns_fd).get(),
                           set->empty() ? fmt::format("allowing every interface{}", where)
                                        : fmt::format("setting the interface list{} to '{}'", where, *set));
        aoe::ModuleInfo info = client.get_info(ns_fd);
        std::string allowed = info.iflist.value_or("");
        if (json) {
            aoe::Json j = aoe::Json::object();
            if (!netns.empty())
                j["netns"] = netns;
            j["iflist"] = allowed;
            j["all"] = allowed.empty();
            if (!netns.empty())
                j["inherited"] = info.iflist_inherited;
            j["changed"] = set.has_value() || inherit;
            aoe::Json ifs = aoe::Json::array();
            for (const auto& i : info.interfaces)
                ifs.push_back(aoe::to_json(i));
            j["interfaces"] = std::move(ifs);
            std::cout << aoe::dump_json(j) << '\n';
        } else {
            std::cout << "allowed: " << (allowed.empty() ? "all" : aoe::printable(allowed))
                      << (info.iflist_inherited ? " (aoe_iflist, the initial namespace's)" : "")
                      << '\n';
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
