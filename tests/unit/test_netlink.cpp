// Unit tests for the netlink client pieces that need no kernel
// (userland/lib/netlink.cpp): request messages and error mapping. The client
// against the real module is tested in the VM suite.
#include <doctest/doctest.h>
#include <netlink/errno.h>

#include <cerrno>

#include "kernel_msg.hpp"
#include "netlink.hpp"

using namespace aoe;

namespace {

genlmsghdr* genl(nl_msg* m)
{
    return static_cast<genlmsghdr*>(nlmsg_data(nlmsg_hdr(m)));
}

nlattr* find(nl_msg* m, int type)
{
    return nlmsg_find_attr(nlmsg_hdr(m), GENL_HDRLEN, type);
}

}  // namespace

TEST_CASE("netlink: request messages follow the contract")
{
    auto dump = build_get_targets(0x1a);
    CHECK(nlmsg_hdr(dump.get())->nlmsg_type == 0x1a);
    CHECK((nlmsg_hdr(dump.get())->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP);
    CHECK(genl(dump.get())->cmd == AOE_CMD_GET_TARGET);
    CHECK(genl(dump.get())->version == AOE_GENL_VERSION);
    CHECK(genlmsg_attrlen(genl(dump.get()), 0) == 0);

    auto one = build_get_target(0x1a, 65534, 254);
    CHECK((nlmsg_hdr(one.get())->nlmsg_flags & NLM_F_DUMP) == 0);
    REQUIRE(find(one.get(), AOE_A_SHELF));
    REQUIRE(find(one.get(), AOE_A_SLOT));
    CHECK(nla_get_u16(find(one.get(), AOE_A_SHELF)) == 65534);
    CHECK(nla_get_u8(find(one.get(), AOE_A_SLOT)) == 254);

    auto info = build_get_info(0x1a);
    CHECK(genl(info.get())->cmd == AOE_CMD_GET_INFO);

    auto all = build_discover(0x1a, std::nullopt);
    CHECK(genl(all.get())->cmd == AOE_CMD_DISCOVER);
    CHECK_FALSE(find(all.get(), AOE_A_IFNAME));
    auto eth = build_discover(0x1a, std::string("eth0"));
    REQUIRE(find(eth.get(), AOE_A_IFNAME));
    CHECK(std::string(nla_get_string(find(eth.get(), AOE_A_IFNAME))) == "eth0");
}

TEST_CASE("netlink: request errors become typed errors")
{
    CHECK_THROWS_WITH_AS(nl::throw_request_error("discovery", -NLE_PERM, EPERM),
                         "permission denied: discovery needs CAP_NET_ADMIN (run as root)",
                         PermissionDenied);
    CHECK_THROWS_AS(nl::throw_request_error("discovery", -NLE_PERM, 0), PermissionDenied);
    try {
        nl::throw_request_error("discovery on eth9", -NLE_NODEV, ENODEV);
        FAIL("no exception");
    } catch (const NetlinkError& e) {
        CHECK(e.nl_error() == -NLE_NODEV);
        CHECK(std::string(e.what()) ==
              std::string("discovery on eth9 failed: ") + nl_geterror(-NLE_NODEV));
    }
    CHECK(nl::error_text("x", -NLE_NOMEM) == std::string("x: ") + nl_geterror(-NLE_NOMEM));
}

TEST_CASE("netlink: RAII handles")
{
    nl::MsgPtr m = nl::make_msg();
    CHECK(m);
    nl::SockPtr s = nl::make_sock();
    CHECK(s);
    nl::CbPtr c = nl::make_cb();
    CHECK(c);
    nl::MsgPtr moved = std::move(m);
    CHECK_FALSE(m);
    CHECK(moved);
}
