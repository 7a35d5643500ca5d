// Pieces of the admin tools (aoe-interfaces, aoe-flush, aoe-revalidate,
// aoe-version) that need no kernel: argument parsing, request building and
// version lookup. The requests follow kmod/uapi/aoe_netlink.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/netlink.hpp"

namespace aoe {

struct DeviceAddr {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    bool operator==(const DeviceAddr&) const = default;
};

// "e1.2", "/dev/etherd/e1.2" or "etherd/e1.2" (a partition suffix "p1" is
// refused). Shelf 0..65534, slot 0..254 (the broadcast values are not
// targets). Throws UsageError saying what is wrong.
DeviceAddr parse_device(const std::string& arg);

// Interface names for SET_INTERFACES joined with single spaces, after
// checking each one as the kernel does (1..15 characters, no blank, comma,
// slash or colon-free requirement aside). Throws UsageError.
std::string join_iflist(const std::vector<std::string>& names);

// netns_fd: set that network namespace's list (AOE_A_NETNS_FD), not the
// initial namespace's aoe_iflist. build_inherit_interfaces: that namespace
// follows aoe_iflist again (AOE_A_IFLIST_INHERIT).
nl::MsgPtr build_set_interfaces(int family, const std::string& iflist,
                                std::optional<int> netns_fd = std::nullopt);
nl::MsgPtr build_inherit_interfaces(int family, int netns_fd);
nl::MsgPtr build_flush(int family, bool all, const std::optional<DeviceAddr>& dev);
nl::MsgPtr build_revalidate(int family, DeviceAddr dev);
// SET_TARGET with AOE_A_FLUSH_MODE (enum aoe_flush_mode).
nl::MsgPtr build_set_flush_mode(int family, DeviceAddr dev, uint32_t mode);

// aoe-set's settings, each optional: values as SET_TARGET takes them
// (AOE_POLICY_DEFAULT: follow the module again).
struct TargetSettings {
    std::optional<uint32_t> deadsecs;    // 1..86400
    std::optional<uint32_t> fast_fail;   // 0 (off) or 1..86400
    std::optional<uint32_t> flush_mode;  // enum aoe_flush_mode
    bool empty() const { return !deadsecs && !fast_fail && !flush_mode; }
};

// "deadsecs N|default", "fast-fail N|off|default", "flush MODE", as pairs
// of words (also "NAME=VALUE"); a setting named twice, an unknown one or a
// bad value throws UsageError saying what is allowed.
TargetSettings parse_target_settings(const std::vector<std::string>& words);
// SET_TARGET with every setting given.
nl::MsgPtr build_set_target(int family, DeviceAddr dev, const TargetSettings& s);

// Installed and running module versions, as aoe-version reports them.
struct ModuleVersions {
    std::optional<std::string> installed;       // version of the aoe.ko modprobe would load
    std::optional<std::string> installed_path;  // that file, when known
    std::optional<std::string> running;         // version of the loaded module
    std::string running_source;                 // "netlink", "sysfs" or ""
};

// The version= field of a module file's .modinfo (libkmod, as modinfo -F
// version), nullopt when the file is missing, not a module or has none.
std::optional<std::string> module_file_version(const std::filesystem::path& ko);

// Looks everything up: installed = "aoe" resolved by libkmod in
// <modroot>/<release>'s indexes as modprobe would (alias, modules.dep; the
// path too), else <modroot>/<release>/updates/aoe.ko (not indexed yet);
// running from GET_INFO (only when <sysroot>/module/aoe exists: never loads
// the module), else <sysroot>/module/aoe/version.
ModuleVersions lookup_module_versions(const std::filesystem::path& modroot = "/lib/modules",
                                      const std::filesystem::path& sysroot = "/sys");

}  // namespace aoe
