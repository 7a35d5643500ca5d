// Unit tests for the generic netlink family lookup that never loads the
// module (userland/lib/core/netlink.cpp: parse_family, module_missing_error).
#include <doctest/doctest.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "aoe_netlink.h"
#include "core/netlink.hpp"

namespace {

// A CTRL_CMD_NEWFAMILY message as the controller's dump sends it.
aoe::nl::MsgPtr family_msg(const char* name, uint16_t id,
                           const std::vector<std::pair<const char*, uint32_t>>& groups)
{
    aoe::nl::MsgPtr m(nlmsg_alloc());
    REQUIRE(m);
    REQUIRE(genlmsg_put(m.get(), 0, 1, GENL_ID_CTRL, 0, NLM_F_MULTI, CTRL_CMD_NEWFAMILY, 2));
    REQUIRE(nla_put_string(m.get(), CTRL_ATTR_FAMILY_NAME, name) == 0);
    REQUIRE(nla_put_u16(m.get(), CTRL_ATTR_FAMILY_ID, id) == 0);
    REQUIRE(nla_put_u32(m.get(), CTRL_ATTR_VERSION, 2) == 0);
    if (!groups.empty()) {
        nlattr* all = nla_nest_start(m.get(), CTRL_ATTR_MCAST_GROUPS);
        int i = 1;
        for (const auto& [gname, gid] : groups) {
            nlattr* one = nla_nest_start(m.get(), i++);
            REQUIRE(nla_put_u32(m.get(), CTRL_ATTR_MCAST_GRP_ID, gid) == 0);
            REQUIRE(nla_put_string(m.get(), CTRL_ATTR_MCAST_GRP_NAME, gname) == 0);
            nla_nest_end(m.get(), one);
        }
        nla_nest_end(m.get(), all);
    }
    return m;
}

struct TempDir {
    std::filesystem::path path;
    TempDir()
    {
        char tmpl[] = "/tmp/aoe-family-XXXXXX";
        REQUIRE(mkdtemp(tmpl));
        path = tmpl;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("family: the dump entry called aoe gives its id and event group")
{
    auto m = family_msg(AOE_GENL_NAME, 0x1a, {{"other", 3}, {AOE_GENL_MCGRP_EVENTS, 7}});
    auto f = aoe::nl::parse_family(nlmsg_hdr(m.get()), AOE_GENL_NAME);
    REQUIRE(f);
    CHECK(f->id == 0x1a);
    CHECK(f->group(AOE_GENL_MCGRP_EVENTS) == 7u);
    CHECK(f->group("other") == 3u);
    CHECK_FALSE(f->group("nope"));
}

TEST_CASE("family: other families are skipped, a prefix is not a match")
{
    auto nlctrl = family_msg("nlctrl", GENL_ID_CTRL, {{"notify", 0x10}});
    CHECK_FALSE(aoe::nl::parse_family(nlmsg_hdr(nlctrl.get()), AOE_GENL_NAME));
    auto aoex = family_msg("aoex", 0x20, {});
    CHECK_FALSE(aoe::nl::parse_family(nlmsg_hdr(aoex.get()), AOE_GENL_NAME));
    auto plain = family_msg(AOE_GENL_NAME, 0x21, {});
    auto f = aoe::nl::parse_family(nlmsg_hdr(plain.get()), AOE_GENL_NAME);
    REQUIRE(f);
    CHECK(f->groups.empty());
}

TEST_CASE("family: a message without name or id is a ParseError")
{
    aoe::nl::MsgPtr m(nlmsg_alloc());
    REQUIRE(genlmsg_put(m.get(), 0, 1, GENL_ID_CTRL, 0, 0, CTRL_CMD_NEWFAMILY, 2));
    REQUIRE(nla_put_string(m.get(), CTRL_ATTR_FAMILY_NAME, AOE_GENL_NAME) == 0);
    CHECK_THROWS_AS(aoe::nl::parse_family(nlmsg_hdr(m.get()), AOE_GENL_NAME), aoe::ParseError);
}

TEST_CASE("family missing: the in-tree driver is named, else modprobe aoe")
{
    TempDir d;
    CHECK(std::string(aoe::module_missing_error(d.path.string()).what()) ==
          "aoe module not loaded: run modprobe aoe");
    std::filesystem::create_directories(d.path / "aoe");
    std::ofstream(d.path / "aoe" / "initstate") << "coming\n";  // aoekit's, loading
    CHECK(std::string(aoe::module_missing_error(d.path.string()).what()) ==
          "aoe module not loaded: run modprobe aoe");
    std::ofstream(d.path / "aoe" / "initstate") << "live\n";
    CHECK(std::string(aoe::module_missing_error(d.path.string()).what()) ==
          "the in-tree aoe driver is loaded: rmmod aoe && modprobe aoe from aoekit");
}
