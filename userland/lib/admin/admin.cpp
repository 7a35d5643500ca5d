#include "admin/admin.hpp"

#include <fmt/format.h>
#include <netlink/genl/genl.h>
#include <libkmod.h>
#include <sys/utsname.h>

#include <cstring>
#include <fstream>
#include <string_view>
#include <memory>
#include <regex>

#include "aoe_netlink.h"
#include "aoe_policy.h"
#include "core/error.hpp"
#include "core/log.hpp"

namespace aoe {

namespace {

std::string trim(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
    return s;
}

// libkmod handles.
struct CtxUnref {
    void operator()(kmod_ctx* c) const noexcept { kmod_unref(c); }
};
struct ModUnref {
    void operator()(kmod_module* m) const noexcept { kmod_module_unref(m); }
};
struct ListUnref {
    void operator()(kmod_list* l) const noexcept { kmod_module_unref_list(l); }
};
struct InfoFree {
    void operator()(kmod_list* l) const noexcept { kmod_module_info_free_list(l); }
};
using CtxPtr = std::unique_ptr<kmod_ctx, CtxUnref>;
using ModPtr = std::unique_ptr<kmod_module, ModUnref>;

// A libkmod context on the modules of one kernel (modules.dep and the
// other indexes of `dir`), without reading modprobe.d.
CtxPtr kmod_context(const std::filesystem::path& dir)
{
    static const char* const no_config[] = {nullptr};
    CtxPtr ctx(kmod_new(dir.c_str(), no_config));
    if (!ctx)
        log::debug("libkmod: no context for {}", dir.string());
    return ctx;
}

// The version= field of a module's .modinfo, as modinfo -F version.
std::optional<std::string> kmod_version(kmod_module* mod)
{
    kmod_list* raw = nullptr;
    int err = kmod_module_get_info(mod, &raw);
    if (err < 0) {
        log::debug("libkmod: no modinfo for {}: {}", kmod_module_get_name(mod),
                   std::strerror(-err));
        return std::nullopt;
    }
    std::unique_ptr<kmod_list, InfoFree> info(raw);
    kmod_list* l;
    kmod_list_foreach(l, info.get()) {
        const char* key = kmod_module_info_get_key(l);
        const char* value = kmod_module_info_get_value(l);
        if (key && value && std::string_view(key) == "version" && *value)
            return std::string(value);
    }
    return std::nullopt;
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

nl::MsgPtr build_set_interfaces(int family, const std::string& iflist,
                                std::optional<int> netns_fd)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_INTERFACES, 0);
    nl::put_attr(nla_put_string(msg.get(), AOE_A_IFLIST, iflist.c_str()), "AOE_A_IFLIST");
    if (netns_fd)
        nl::put_attr(nla_put_u32(msg.get(), AOE_A_NETNS_FD, static_cast<uint32_t>(*netns_fd)),
                     "AOE_A_NETNS_FD");
    return msg;
}

nl::MsgPtr build_inherit_interfaces(int family, int netns_fd)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_INTERFACES, 0);
    nl::put_attr(nla_put_flag(msg.get(), AOE_A_IFLIST_INHERIT), "AOE_A_IFLIST_INHERIT");
    nl::put_attr(nla_put_u32(msg.get(), AOE_A_NETNS_FD, static_cast<uint32_t>(netns_fd)),
                 "AOE_A_NETNS_FD");
    return msg;
}

nl::MsgPtr build_flush(int family, bool all, const std::optional<DeviceAddr>& dev)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_FLUSH, 0);
    if (all)
        nl::put_attr(nla_put_flag(msg.get(), AOE_A_FLUSH_ALL), "AOE_A_FLUSH_ALL");
    if (dev) {
        nl::put_attr(nla_put_u16(msg.get(), AOE_A_SHELF, dev->shelf), "AOE_A_SHELF");
        nl::put_attr(nla_put_u8(msg.get(), AOE_A_SLOT, dev->slot), "AOE_A_SLOT");
    }
    return msg;
}

nl::MsgPtr build_revalidate(int family, DeviceAddr dev)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_REVALIDATE, 0);
    nl::put_attr(nla_put_u16(msg.get(), AOE_A_SHELF, dev.shelf), "AOE_A_SHELF");
    nl::put_attr(nla_put_u8(msg.get(), AOE_A_SLOT, dev.slot), "AOE_A_SLOT");
    return msg;
}

nl::MsgPtr build_set_flush_mode(int family, DeviceAddr dev, uint32_t mode)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_TARGET, 0);
    nl::put_attr(nla_put_u16(msg.get(), AOE_A_SHELF, dev.shelf), "AOE_A_SHELF");
    nl::put_attr(nla_put_u8(msg.get(), AOE_A_SLOT, dev.slot), "AOE_A_SLOT");
    nl::put_attr(nla_put_u32(msg.get(), AOE_A_FLUSH_MODE, mode), "AOE_A_FLUSH_MODE");
    return msg;
}

namespace {

// Seconds: decimal digits only (no sign, no suffix), checked by the same
// code as the module (aoe_policy_check); "default" follows the module.
uint32_t parse_secs(const std::string& name, const std::string& v, bool off_ok)
{
    if (v == "default")
        return AOE_POLICY_DEFAULT;
    if (off_ok && v == "off")
        return 0;
    std::string what = off_ok ? AOE_POLICY_MSG_FAST_FAIL : AOE_POLICY_MSG_DEADSECS;
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError(fmt::format("{} {}: not a number of seconds ({})", name, v, what));
    uint32_t n = static_cast<uint32_t>(std::stoul(v));
    aoe_policy_err e = off_ok ? aoe_policy_check(nullptr, &n) : aoe_policy_check(&n, nullptr);
    if (e != AOE_POLICY_OK)
        throw UsageError(fmt::format("{} {}: {}", name, v, aoe_policy_strerror(e)));
    return n;
}

}  // namespace

TargetSettings parse_target_settings(const std::vector<std::string>& words)
{
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (auto eq = w.find('='); eq != std::string::npos) {
            pairs.emplace_back(w.substr(0, eq), w.substr(eq + 1));
            continue;
        }
        if (i + 1 == words.size())
            throw UsageError(fmt::format("{}: give a value (e.g. {} default)", w, w));
        pairs.emplace_back(w, words[i + 1]);
        ++i;
    }
    TargetSettings s;
    auto once = [](auto& slot, const std::string& name) {
        if (slot)
            throw UsageError(fmt::format("{} given twice", name));
    };
    for (const auto& [name, value] : pairs) {
        if (name == "deadsecs") {
            once(s.deadsecs, name);
            s.deadsecs = parse_secs(name, value, false);
        } else if (name == "fast-fail" || name == "fast_fail") {
            once(s.fast_fail, name);
            s.fast_fail = parse_secs("fast-fail", value, true);
        } else if (name == "flush") {
            once(s.flush_mode, name);
            s.flush_mode = parse_flush_mode(value);
            if (!s.flush_mode)
                throw UsageError(fmt::format(
                    "flush {}: not a flush mode (auto, always, never, default)", value));
        } else {
            throw UsageError(fmt::format(
                "{}: not a setting (deadsecs, fast-fail, flush)", name));
        }
    }
    return s;
}

nl::MsgPtr build_set_target(int family, DeviceAddr dev, const TargetSettings& s)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_SET_TARGET, 0);
    nl::put_attr(nla_put_u16(msg.get(), AOE_A_SHELF, dev.shelf), "AOE_A_SHELF");
    nl::put_attr(nla_put_u8(msg.get(), AOE_A_SLOT, dev.slot), "AOE_A_SLOT");
    if (s.deadsecs)
        nl::put_attr(nla_put_u32(msg.get(), AOE_A_DEADSECS, *s.deadsecs), "AOE_A_DEADSECS");
    if (s.fast_fail)
        nl::put_attr(nla_put_u32(msg.get(), AOE_A_FAST_FAIL, *s.fast_fail), "AOE_A_FAST_FAIL");
    if (s.flush_mode)
        nl::put_attr(nla_put_u32(msg.get(), AOE_A_FLUSH_MODE, *s.flush_mode),
                     "AOE_A_FLUSH_MODE");
    return msg;
}

std::optional<std::string> module_file_version(const std::filesystem::path& ko)
{
    utsname u{};
    CtxPtr ctx = kmod_context(uname(&u) == 0 ? std::filesystem::path("/lib/modules") / u.release
                                             : std::filesystem::path("/"));
    if (!ctx)
        return std::nullopt;
    kmod_module* raw = nullptr;
    if (kmod_module_new_from_path(ctx.get(), ko.c_str(), &raw) < 0)
        return std::nullopt;
    ModPtr mod(raw);
    return kmod_version(mod.get());
}

ModuleVersions lookup_module_versions(const std::filesystem::path& modroot,
                                      const std::filesystem::path& sysroot)
{
    ModuleVersions v;
    utsname u{};
    if (uname(&u) != 0)
        return v;
    const std::filesystem::path dir = modroot / u.release;
    // What modprobe aoe would load: "aoe" looked up in the indexes as
    // modprobe does (aliases, then modules.dep; an updates/ copy wins).
    if (CtxPtr ctx = kmod_context(dir)) {
        kmod_list* raw = nullptr;
        if (kmod_module_new_from_lookup(ctx.get(), "aoe", &raw) >= 0 && raw) {
            std::unique_ptr<kmod_list, ListUnref> list(raw);
            ModPtr mod(kmod_module_get_module(list.get()));
            if (mod) {
                v.installed = kmod_version(mod.get());
                if (const char* path = kmod_module_get_path(mod.get()); v.installed && path)
                    v.installed_path = path;
            }
        }
    }
    if (!v.installed) {  // not indexed (no depmod yet): the DKMS/make install place
        auto ko = dir / "updates" / "aoe.ko";
        if ((v.installed = module_file_version(ko)))
            v.installed_path = ko.string();
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
