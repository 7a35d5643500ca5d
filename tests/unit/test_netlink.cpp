// Unit tests for the netlink client pieces that need no kernel
// (userland/lib/core/netlink.cpp): request messages and error mapping. The client
// against the real module is tested in the VM suite.
#include <doctest/doctest.h>
#include <netlink/errno.h>

#include <linux/netlink.h>

#include <cerrno>
#include <cstring>

#include "kernel_msg.hpp"
#include "core/netlink.hpp"

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
    CHECK_FALSE(find(info.get(), AOE_A_NETNS_FD));
    auto ns_info = build_get_info(0x1a, 5);
    REQUIRE(find(ns_info.get(), AOE_A_NETNS_FD));
    CHECK(nla_get_u32(find(ns_info.get(), AOE_A_NETNS_FD)) == 5);

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
    // An EPERM the kernel explains is not the capability check.
    CHECK_THROWS_WITH_AS(nl::throw_request_error("reading module information", -NLE_PERM, EPERM,
                                                 "AoE does not use that network namespace"),
                         "permission denied: reading module information: AoE does not use that "
                         "network namespace",
                         PermissionDenied);
    try {
        nl::throw_request_error("discovery on eth9", -NLE_NODEV, ENODEV);
        FAIL("no exception");
    } catch (const NetlinkError& e) {
        CHECK(e.nl_error() == -NLE_NODEV);
        CHECK(std::string(e.what()) ==
              std::string("discovery on eth9 failed: ") + nl_geterror(-NLE_NODEV));
    }
    CHECK(nl::error_text("x", -NLE_NOMEM) == std::string("x: ") + nl_geterror(-NLE_NOMEM));
    // A failed dump (errno in NLMSG_DONE) that libnl cannot name.
    CHECK_THROWS_WITH_AS(nl::throw_request_error("listing targets", -NLE_FAILURE, EMSGSIZE),
                         (std::string("listing targets failed: ") + std::strerror(EMSGSIZE)).c_str(),
                         NetlinkError);
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

namespace {

// An NLMSG_ERROR as the kernel sends it with NETLINK_EXT_ACK set.
nl::MsgPtr error_msg(int error, const char* text, bool capped)
{
    auto req = build_discover(0x1a, std::string("eth9"));
    nlmsghdr* rh = nlmsg_hdr(req.get());
    nl::MsgPtr m(nlmsg_alloc_simple(NLMSG_ERROR, capped ? NLM_F_CAPPED : 0));
    REQUIRE(m);
    size_t payload = sizeof(nlmsgerr) + (capped ? 0 : NLMSG_ALIGN(rh->nlmsg_len - NLMSG_HDRLEN));
    auto* e = static_cast<nlmsgerr*>(nlmsg_reserve(m.get(), payload, NLMSG_ALIGNTO));
    REQUIRE(e);
    e->error = error;
    e->msg = *rh;
    if (!capped)
        std::memcpy(e + 1, nlmsg_data(rh), rh->nlmsg_len - NLMSG_HDRLEN);
    if (text) {
        nlmsg_hdr(m.get())->nlmsg_flags |= NLM_F_ACK_TLVS;
        REQUIRE(nla_put_string(m.get(), NLMSGERR_ATTR_MSG, text) == 0);
    }
    return m;
}

}  // namespace

TEST_CASE("netlink: the kernel's extended ack message is kept")
{
    auto capped = error_msg(-ENODEV, "interface missing, down or not in aoe_iflist", true);
    CHECK(nl::extack_message(nlmsg_hdr(capped.get())) ==
          "interface missing, down or not in aoe_iflist");
    auto full = error_msg(-ENODEV, "no usable interface: none up or in aoe_iflist", false);
    CHECK(nl::extack_message(nlmsg_hdr(full.get())) ==
          "no usable interface: none up or in aoe_iflist");
    auto none = error_msg(-ENODEV, nullptr, false);
    CHECK(nl::extack_message(nlmsg_hdr(none.get())) == "");
    auto reply = build_get_info(0x1a);
    CHECK(nl::extack_message(nlmsg_hdr(reply.get())) == "");

    CHECK_THROWS_WITH_AS(
        nl::throw_request_error("discovery", -NLE_NODEV, ENODEV, "no usable interface"),
        (std::string("discovery failed: ") + nl_geterror(-NLE_NODEV) + " (no usable interface)")
            .c_str(),
        NetlinkError);
}
