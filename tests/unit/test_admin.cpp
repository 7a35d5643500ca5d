// Unit tests for the admin tools' library pieces (userland/lib/admin/admin.cpp):
// device and interface argument parsing, FLUSH / REVALIDATE /
// SET_INTERFACES requests, module version lookup on a fake root.
#include <doctest/doctest.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <cstdlib>
#include <fstream>

#include "admin/admin.hpp"
#include "aoe_netlink.h"
#include "core/error.hpp"

using namespace aoe;
namespace fs = std::filesystem;

namespace {

genlmsghdr* genl(nl_msg* m)
{
    return static_cast<genlmsghdr*>(nlmsg_data(nlmsg_hdr(m)));
}

nlattr* find(nl_msg* m, int type)
{
    return nlmsg_find_attr(nlmsg_hdr(m), GENL_HDRLEN, type);
}

struct TempDir {
    fs::path path;
    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "aoe-admin-XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()));
        path = tmpl;
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("admin: device names")
{
    CHECK(parse_device("e1.2") == DeviceAddr{1, 2});
    CHECK(parse_device("/dev/etherd/e65534.254") == DeviceAddr{65534, 254});
    CHECK(parse_device("etherd/e0.0") == DeviceAddr{0, 0});
    CHECK_THROWS_WITH_AS(parse_device("e65535.0"), "'e65535.0': shelf 65535 is beyond 65534",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_device("e1.255"), "'e1.255': slot 255 is beyond 254",
                         UsageError);
    CHECK_THROWS_WITH_AS(parse_device("e1.2p1"),
                         "'e1.2p1' is a partition: name the whole device (eS.L, e.g. e1.2)",
                         UsageError);
    CHECK_THROWS_AS(parse_device("sda"), UsageError);
    CHECK_THROWS_AS(parse_device("e1"), UsageError);
    CHECK_THROWS_AS(parse_device("e1.2 "), UsageError);
    CHECK_THROWS_AS(parse_device("/dev/sda/e1.2"), UsageError);
    CHECK_THROWS_AS(parse_device("e-1.2"), UsageError);
}

TEST_CASE("admin: interface lists")
{
    CHECK(join_iflist({"eth0"}) == "eth0");
    CHECK(join_iflist({"eth0", "enp1s0f1", "veth-aoe.100"}) == "eth0 enp1s0f1 veth-aoe.100");
    CHECK(join_iflist({}) == "");
    CHECK_THROWS_WITH_AS(join_iflist({"eth0", "abcdefghijklmnop"}),
                         "interface name 'abcdefghijklmnop' is longer than 15 characters",
                         UsageError);
    CHECK_NOTHROW(join_iflist({"abcdefghijklmno"}));
    CHECK_THROWS_AS(join_iflist({"eth0 eth1"}), UsageError);
    CHECK_THROWS_AS(join_iflist({"eth0,eth1"}), UsageError);
    CHECK_THROWS_AS(join_iflist({""}), UsageError);
    CHECK_THROWS_AS(join_iflist({"a/b"}), UsageError);
}

TEST_CASE("admin: requests follow the contract")
{
    auto set = build_set_interfaces(0x1b, "eth0 eth1");
    CHECK(nlmsg_hdr(set.get())->nlmsg_type == 0x1b);
    CHECK(genl(set.get())->cmd == AOE_CMD_SET_INTERFACES);
    CHECK(genl(set.get())->version == AOE_GENL_VERSION);
    REQUIRE(find(set.get(), AOE_A_IFLIST));
    CHECK(std::string(nla_get_string(find(set.get(), AOE_A_IFLIST))) == "eth0 eth1");
    // Clearing sends an empty string, not a missing attribute (the kernel
    // requires AOE_A_IFLIST).
    auto clear = build_set_interfaces(0x1b, "");
    REQUIRE(find(clear.get(), AOE_A_IFLIST));
    CHECK(std::string(nla_get_string(find(clear.get(), AOE_A_IFLIST))).empty());
    CHECK_FALSE(find(set.get(), AOE_A_NETNS_FD));
    // Another namespace's list: its file descriptor goes along.
    auto ns = build_set_interfaces(0x1b, "a0", 7);
    REQUIRE(find(ns.get(), AOE_A_NETNS_FD));
    CHECK(nla_get_u32(find(ns.get(), AOE_A_NETNS_FD)) == 7);
    CHECK_FALSE(find(ns.get(), AOE_A_IFLIST_INHERIT));
    auto inh = build_inherit_interfaces(0x1b, 9);
    CHECK(genl(inh.get())->cmd == AOE_CMD_SET_INTERFACES);
    CHECK(find(inh.get(), AOE_A_IFLIST_INHERIT));
    CHECK_FALSE(find(inh.get(), AOE_A_IFLIST));
    REQUIRE(find(inh.get(), AOE_A_NETNS_FD));
    CHECK(nla_get_u32(find(inh.get(), AOE_A_NETNS_FD)) == 9);

    auto flush = build_flush(0x1b, false, std::nullopt);
    CHECK(genl(flush.get())->cmd == AOE_CMD_FLUSH);
    CHECK_FALSE(find(flush.get(), AOE_A_FLUSH_ALL));
    CHECK_FALSE(find(flush.get(), AOE_A_SHELF));
    CHECK_FALSE(find(flush.get(), AOE_A_SLOT));
    auto flush_all = build_flush(0x1b, true, DeviceAddr{7, 3});
    CHECK(find(flush_all.get(), AOE_A_FLUSH_ALL));
    REQUIRE(find(flush_all.get(), AOE_A_SHELF));
    REQUIRE(find(flush_all.get(), AOE_A_SLOT));
    CHECK(nla_get_u16(find(flush_all.get(), AOE_A_SHELF)) == 7);
    CHECK(nla_get_u8(find(flush_all.get(), AOE_A_SLOT)) == 3);

    auto reval = build_revalidate(0x1b, DeviceAddr{65534, 254});
    CHECK(genl(reval.get())->cmd == AOE_CMD_REVALIDATE);
    CHECK((nlmsg_hdr(reval.get())->nlmsg_flags & NLM_F_DUMP) == 0);
    CHECK(nla_get_u16(find(reval.get(), AOE_A_SHELF)) == 65534);
    CHECK(nla_get_u8(find(reval.get(), AOE_A_SLOT)) == 254);
}

TEST_CASE("admin: aoe-set settings")
{
    TargetSettings s = parse_target_settings({});
    CHECK(s.empty());
    s = parse_target_settings({"deadsecs", "10", "fast-fail", "off", "flush", "never"});
    CHECK(s.deadsecs == 10u);
    CHECK(s.fast_fail == 0u);
    CHECK(s.flush_mode == uint32_t(AOE_FLUSH_MODE_NEVER));
    s = parse_target_settings({"deadsecs=default", "fast_fail=86400"});
    CHECK(s.deadsecs == AOE_POLICY_DEFAULT);
    CHECK(s.fast_fail == 86400u);
    CHECK_FALSE(s.flush_mode);
    CHECK(parse_target_settings({"fast-fail", "default"}).fast_fail == AOE_POLICY_DEFAULT);
    auto bad = [](std::vector<std::string> w, const std::string& msg) {
        try {
            parse_target_settings(w);
            FAIL("accepted: ", w.front());
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()) == msg);
        }
    };
    bad({"deadsecs", "0"}, "deadsecs 0: deadsecs must be 1..86400 seconds, or default");
    bad({"deadsecs", "86401"}, "deadsecs 86401: deadsecs must be 1..86400 seconds, or default");
    bad({"deadsecs", "off"},
        "deadsecs off: not a number of seconds (deadsecs must be 1..86400 seconds, or default)");
    bad({"deadsecs", "-1"},
        "deadsecs -1: not a number of seconds (deadsecs must be 1..86400 seconds, or default)");
    bad({"deadsecs", "99999999999999999999"},
        "deadsecs 99999999999999999999: not a number of seconds (deadsecs must be 1..86400 "
        "seconds, or default)");
    bad({"fast-fail", "4294967295"},
        "fast-fail 4294967295: not a number of seconds (fast-fail must be 0 (off) or 1..86400 "
        "seconds, or default)");
    bad({"fast-fail", "100000"},
        "fast-fail 100000: fast-fail must be 0 (off) or 1..86400 seconds, or default");
    bad({"deadsecs"}, "deadsecs: give a value (e.g. deadsecs default)");
    bad({"deadsecs", "5", "deadsecs", "6"}, "deadsecs given twice");
    bad({"speed", "5"}, "speed: not a setting (deadsecs, fast-fail, flush)");
    bad({"flush", "sometimes"}, "flush sometimes: not a flush mode (auto, always, never, default)");

    TargetSettings all{5, 0, AOE_FLUSH_MODE_AUTO};
    auto m = build_set_target(0x1b, DeviceAddr{7, 3}, all);
    CHECK(genl(m.get())->cmd == AOE_CMD_SET_TARGET);
    CHECK(nla_get_u16(find(m.get(), AOE_A_SHELF)) == 7);
    CHECK(nla_get_u8(find(m.get(), AOE_A_SLOT)) == 3);
    CHECK(nla_get_u32(find(m.get(), AOE_A_DEADSECS)) == 5);
    CHECK(nla_get_u32(find(m.get(), AOE_A_FAST_FAIL)) == 0);
    CHECK(nla_get_u32(find(m.get(), AOE_A_FLUSH_MODE)) == AOE_FLUSH_MODE_AUTO);
    auto only = build_set_target(0x1b, DeviceAddr{7, 3}, TargetSettings{std::nullopt, 3, {}});
    CHECK_FALSE(find(only.get(), AOE_A_DEADSECS));
    CHECK_FALSE(find(only.get(), AOE_A_FLUSH_MODE));
    CHECK(nla_get_u32(find(only.get(), AOE_A_FAST_FAIL)) == 3);
}

TEST_CASE("admin: module versions")
{
    using namespace std::string_literals;
    TempDir root;
    utsname u{};
    REQUIRE(uname(&u) == 0);
    fs::path dir = root.path / "lib" / u.release / "updates";
    fs::create_directories(dir);
    // A real ELF object with a .modinfo section, as a .ko has (libkmod reads
    // the section; the byte search it replaces took any "version=" string).
    {
        std::ofstream src(root.path / "mod.c");
        src << "__attribute__((section(\".modinfo\"), used)) static const char a[] = "
               "\"srcversion=DEADBEEF\";\n"
               "__attribute__((section(\".modinfo\"), used)) static const char b[] = "
               "\"license=GPL\";\n"
               "__attribute__((section(\".modinfo\"), used)) static const char c[] = "
               "\"version=0.1.0\";\n"
               "const char *other = \"version=9.9.9\";\n";
    }
    std::string cc = "cc -c -o '" + (dir / "aoe.ko").string() + "' '" +
                     (root.path / "mod.c").string() + "'";
    REQUIRE_MESSAGE(std::system(cc.c_str()) == 0, "cannot compile a test module: " << cc);
    {
        // Not a module: no ELF, only the bytes.
        std::ofstream junk(root.path / "junk.ko", std::ios::binary);
        junk << "\x7f" "ELF junk"s << "\0license=GPL\0version=0.1.0\0"s;
    }
    CHECK_FALSE(module_file_version(root.path / "junk.ko"));
    fs::create_directories(root.path / "sys" / "module" / "aoe");
    std::ofstream(root.path / "sys" / "module" / "aoe" / "version") << "0.0.9\n";
    CHECK(module_file_version(dir / "aoe.ko") == "0.1.0");
    CHECK_FALSE(module_file_version(dir / "missing.ko"));

    ModuleVersions v = lookup_module_versions(root.path / "lib", root.path / "sys");
    CHECK(v.installed == "0.1.0");
    CHECK(v.installed_path == (dir / "aoe.ko").string());
    CHECK(v.running == "0.0.9");
    CHECK(v.running_source == "sysfs");

    fs::remove_all(root.path / "sys" / "module");
    fs::remove(dir / "aoe.ko");
    v = lookup_module_versions(root.path / "lib", root.path / "sys");
    CHECK_FALSE(v.installed);
    CHECK_FALSE(v.running);
    CHECK(v.running_source.empty());
}
