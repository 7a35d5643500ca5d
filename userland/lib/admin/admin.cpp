#include "admin/admin.hpp"

#include <fmt/format.h>
#include <netlink/genl/genl.h>
#include <sys/utsname.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>

#include "aoe_netlink.h"
#include "core/error.hpp"
#include "core/log.hpp"

namespace aoe {

namespace {

void put(int err, const char* attr)
{
    if (err < 0)
        throw NetlinkError(nl::error_text(fmt::format("cannot add {} to a request", attr), err),
                           err);
}

std::string trim(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
    return s;
}

struct PipeCloser {
    void operator()(FILE* f) const noexcept { pclose(f); }
};

// Output of a fixed command line (no user input in it), or nullopt when it
// fails or prints nothing.
std::optional<std::string> command_output(const char* cmd)
{
    std::unique_ptr<FILE, PipeCloser> p(popen(cmd, "r"));
    if (!p)
        return std::nullopt;
    std::string out;
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p.get())) > 0)
        out.append(buf, n);
    int status = pclose(p.release());
    out = trim(out);
    if (status != 0 || out.empty())
        return std::nullopt;
    return out;
}

std::optional<std::string> read_line(const std::filesystem::path& f)
{
    std::ifstream in(f);
    std::string line;
    if (!in || !std::getline(in, line))
        return std::nullopt;
    line = trim(line);
    if (line.empty())
        return std::nullopt;
    return line;
}

}  // namespace

DeviceAddr parse_device(const std::string& arg)
{
    static const std::regex re(R"(^(?:/dev/)?(?:etherd/)?e([0-9]{1,5})\.([0-9]{1,3})$)");
    std::smatch m;
    if (!std::regex_match(arg, m, re)) {
        if (std::regex_search(arg, std::regex(R"(e[0-9]+\.[0-9]+p[0-9]+$)")))
            throw UsageError(fmt::format(
                "'{}' is a partition: name the whole device (eS.L, e.g. e1.2)", arg));
        throw UsageError(
            fmt::format("'{}' is not an AoE device: use eS.L or /dev/etherd/eS.L (e.g. e1.2)", arg));
    }
    unsigned long shelf = std::stoul(m[1].str());
    unsigned long slot = std::stoul(m[2].str());
    if (shelf > 0xfffe)
        throw UsageError(fmt::format("'{}': shelf {} is beyond 65534", arg, shelf));
    if (slot > 0xfe)
        throw UsageError(fmt::format("'{}': slot {} is beyond 254", arg, slot));
    return {static_cast<uint16_t>(shelf), static_cast<uint8_t>(slot)};
}

std::string join_iflist(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names) {
        if (n.empty())
            throw UsageError("empty interface name");
        if (n.size() > 15)
            throw UsageError(
                fmt::format("interface name '{}' is longer than 15 characters", n));
        if (n.find_first_of(" ,\t\n/") != std::string::npos || n == "." || n == "..")
            throw UsageError(fmt::format("'{}' is not an interface name", n));
        if (!out.empty())
            out += ' ';
        out += n;
    }
    if (out.size() >= 1024)
        throw UsageError("interface list longer than 1023 characters");
    return out;
}

nl::MsgPtr build_set_interfaces(int family, const std::string& iflist)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_INTERFACES, 0);
    put(nla_put_string(msg.get(), AOE_A_IFLIST, iflist.c_str()), "AOE_A_IFLIST");
    return msg;
}

nl::MsgPtr build_flush(int family, bool all, const std::optional<DeviceAddr>& dev)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_FLUSH, 0);
    if (all)
        put(nla_put_flag(msg.get(), AOE_A_FLUSH_ALL), "AOE_A_FLUSH_ALL");
    if (dev) {
        put(nla_put_u16(msg.get(), AOE_A_SHELF, dev->shelf), "AOE_A_SHELF");
        put(nla_put_u8(msg.get(), AOE_A_SLOT, dev->slot), "AOE_A_SLOT");
    }
    return msg;
}

nl::MsgPtr build_revalidate(int family, DeviceAddr dev)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_REVALIDATE, 0);
    put(nla_put_u16(msg.get(), AOE_A_SHELF, dev.shelf), "AOE_A_SHELF");
    put(nla_put_u8(msg.get(), AOE_A_SLOT, dev.slot), "AOE_A_SLOT");
    return msg;
}

nl::MsgPtr build_set_flush_mode(int family, DeviceAddr dev, uint32_t mode)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_TARGET, 0);
    put(nla_put_u16(msg.get(), AOE_A_SHELF, dev.shelf), "AOE_A_SHELF");
    put(nla_put_u8(msg.get(), AOE_A_SLOT, dev.slot), "AOE_A_SLOT");
    put(nla_put_u32(msg.get(), AOE_A_FLUSH_MODE, mode), "AOE_A_FLUSH_MODE");
    return msg;
}

std::optional<std::string> modinfo_version(const std::string& bytes)
{
    // Fields are separated by NUL (.modinfo) or newlines (modinfo output).
    size_t pos = 0;
    while (pos < bytes.size()) {
        size_t end = bytes.find_first_of(std::string("\0\n", 2), pos);
        if (end == std::string::npos)
            end = bytes.size();
        std::string_view field(bytes.data() + pos, end - pos);
        if (field.starts_with("version=") && field.size() > 8)
            return std::string(field.substr(8));
        pos = end + 1;
    }
    return std::nullopt;
}

std::optional<std::string> module_file_version(const std::filesystem::path& ko)
{
    std::ifstream in(ko, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The .modinfo strings sit among the rest; a field starts after a NUL.
    static const std::string key("\0version=", 9);
    size_t at = bytes.find(key);
    if (at == std::string::npos)
        return std::nullopt;
    return modinfo_version(bytes.substr(at + 1, bytes.find('\0', at + 1) - at - 1));
}

ModuleVersions lookup_module_versions(const std::filesystem::path& modroot,
                                      const std::filesystem::path& sysroot)
{
    ModuleVersions v;
    if (modroot == "/lib/modules") {
        v.installed = command_output("modinfo -F version aoe 2>/dev/null");
        if (v.installed)
            v.installed_path = command_output("modinfo -n aoe 2>/dev/null");
    }
    if (!v.installed) {
        utsname u{};
        if (uname(&u) == 0) {
            auto ko = modroot / u.release / "updates" / "aoe.ko";
            if ((v.installed = module_file_version(ko)))
                v.installed_path = ko.string();
        }
    }
    // Only ask over netlink when the module is loaded: resolving the family
    // would otherwise autoload it, and aoe-version must not change anything.
    if (std::filesystem::exists(sysroot / "module" / "aoe") && sysroot == "/sys") {
        try {
            Client client;
            v.running = client.get_info().version;
            if (v.running)
                v.running_source = "netlink";
        } catch (const Error& e) {
            log::debug("no running module over netlink: {}", e.what());
        }
    }
    if (!v.running) {
        if ((v.running = read_line(sysroot / "module" / "aoe" / "version")))
            v.running_source = "sysfs";
    }
    return v;
}

}  // namespace aoe
