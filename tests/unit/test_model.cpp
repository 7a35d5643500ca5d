// Unit tests for the netlink attribute parser (userland/lib/core/model.cpp):
// messages built as the module builds them, then parsed.
#include <doctest/doctest.h>

#include <cstring>
#include <iterator>

#include "kernel_msg.hpp"
#include "core/model.hpp"

using namespace aoe;

namespace {

Target parse(const kmsg::TargetSpec& spec, uint8_t cmd = AOE_CMD_GET_TARGET)
{
    kmsg::Msg m(cmd, NLM_F_MULTI);
    kmsg::put_target(m.get(), spec);
    return parse_target_message(m.hdr());
}

kmsg::TargetSpec full_spec()
{
    kmsg::TargetSpec s;
    s.shelf = 65534;
    s.slot = 254;
    s.sectors = 524288;
    s.model = "vblade disk";
    s.serial = "SN-0001";
    s.firmware = "V1.0";
    s.lba48 = true;
    s.outstanding = 3;
    s.deadsecs = 10;
    s.fast_fail = 3;
    s.policy = AOE_POLICY_DEADSECS_OWN | AOE_POLICY_FAILING;
    s.fast_fails = 4;
    kmsg::CountersSpec c;
    for (int a = AOE_CNT_A_FRAMES_SENT; a <= AOE_CNT_A_ATA_ERRORS; ++a)
        c.values[a] = 100 + a;
    for (int a = AOE_CNT_A_BACKOFFS; a <= AOE_CNT_A_FENCE_HELD_US; ++a)
        c.values[a] = 100 + a;
    c.drops = std::map<int, uint64_t>{{AOE_DROP_NO_TAG, 4}, {AOE_DROP_LATE, 2}};
    s.counters = c;
    kmsg::PathSpec p2;
    p2.ifindex = 4;
    p2.ifname = "a1";
    p2.mac = {0x02, 0, 0, 0, 0, 0x02};
    p2.state = AOE_PATH_STATE_DOWN;
    p2.rtt_avg_us = 250;
    p2.rtt_dev_us = 40;
    p2.rtt_min_us = 180;
    p2.rto_us = 820;
    p2.window = 8;
    p2.outstanding = 1;
    p2.mtu = 9000;
    p2.payload = 8704;
    s.path_list.push_back(p2);
    return s;
}

}  // namespace

TEST_CASE("model: a target with every attribute of the contract")
{
    Target t = parse(full_spec());
    CHECK(t.shelf == 65534);
    CHECK(t.slot == 254);
    CHECK(t.device == "e65534.254");
    CHECK(t.generation == 7u);
    CHECK(t.state == uint32_t(AOE_TARGET_STATE_UP));
    CHECK(t.sectors == uint64_t(524288));
    CHECK(t.payload == 1024u);
    CHECK(t.model == "vblade disk");
    CHECK(t.serial == "SN-0001");
    CHECK(t.firmware == "V1.0");
    CHECK(t.lba48);
    CHECK(t.config == "vblade");
    CHECK(t.last_rx_ms == uint64_t(120));
    CHECK(t.outstanding == 3u);
    CHECK(t.deadsecs == 10u);
    CHECK(t.fast_fail == 3u);
    CHECK(t.policy == uint32_t(AOE_POLICY_DEADSECS_OWN | AOE_POLICY_FAILING));
    CHECK(t.fast_fails == 4u);
    CHECK(t.counters.frames_sent == uint64_t(100 + AOE_CNT_A_FRAMES_SENT));
    CHECK(t.counters.ata_errors == uint64_t(100 + AOE_CNT_A_ATA_ERRORS));
    CHECK(t.counters.bytes_written == uint64_t(100 + AOE_CNT_A_BYTES_WRITTEN));
    CHECK(t.counters.backoffs == uint64_t(100 + AOE_CNT_A_BACKOFFS));
    CHECK(t.counters.flushes_sent == uint64_t(100 + AOE_CNT_A_FLUSHES_SENT));
    CHECK(t.counters.flushes_answered == uint64_t(100 + AOE_CNT_A_FLUSHES_ANSWERED));
    CHECK(t.counters.flushes_failed == uint64_t(100 + AOE_CNT_A_FLUSHES_FAILED));
    CHECK(t.counters.fua_writes == uint64_t(100 + AOE_CNT_A_FUA_WRITES));
    CHECK(t.counters.fence_ghosts == uint64_t(100 + AOE_CNT_A_FENCE_GHOSTS));
    CHECK(t.counters.fence_held == uint64_t(100 + AOE_CNT_A_FENCE_HELD));
    CHECK(t.counters.fence_held_us == uint64_t(100 + AOE_CNT_A_FENCE_HELD_US));
    REQUIRE(t.counters.drops);
    CHECK(*t.counters.drops == Drops{{AOE_DROP_NO_TAG, 4}, {AOE_DROP_LATE, 2}});

    REQUIRE(t.paths.size() == 2);
    const Path& a = t.paths[0];
    CHECK(a.ifindex == 3u);
    CHECK(a.ifname == "a0");
    CHECK(a.mac == Mac{0x00, 0x11, 0x22, 0x33, 0x44, 0x55});
    CHECK(a.state == uint32_t(AOE_PATH_STATE_UP));
    CHECK(a.bufcnt == uint16_t(16));
    CHECK(a.fwver == uint16_t(0x4019));
    CHECK(a.maxsect == uint8_t(17));
    CHECK(a.mtu == 1500u);
    CHECK(a.payload == 1024u);
    CHECK_FALSE(a.rtt_avg_us);
    CHECK(a.last_rx_ms == uint64_t(120));
    CHECK(a.counters.frames_sent == uint64_t(10));
    CHECK(a.counters.frames_received == uint64_t(9));
    const Path& b = t.paths[1];
    CHECK(b.ifname == "a1");
    CHECK(b.state == uint32_t(AOE_PATH_STATE_DOWN));
    CHECK(b.rtt_avg_us == 250u);
    CHECK(b.rtt_dev_us == 40u);
    CHECK(b.rtt_min_us == 180u);
    CHECK(b.rto_us == 820u);
    CHECK(b.window == 8u);
    CHECK(b.outstanding == 1u);
    CHECK(b.payload == 8704u);
}

TEST_CASE("model: counters the kernel does not send stay empty, never 0")
{
    kmsg::TargetSpec s;  // what the module sends today: sent/received + drops
    Target t = parse(s);
    CHECK(t.counters.frames_sent == uint64_t(20));
    CHECK(t.counters.frames_received == uint64_t(18));
    CHECK_FALSE(t.counters.retransmits);
    CHECK_FALSE(t.counters.timeouts);
    CHECK_FALSE(t.counters.lost);
    CHECK_FALSE(t.counters.bytes_read);
    CHECK_FALSE(t.counters.ata_errors);
    CHECK_FALSE(t.counters.backoffs);
    REQUIRE(t.counters.drops);  // an empty nest: no drops so far
    CHECK(t.counters.drops->empty());
    CHECK_FALSE(t.sectors);
    CHECK_FALSE(t.model);
    CHECK_FALSE(t.lba48);

    s.counters.reset();
    s.path_list[0].counters.reset();
    t = parse(s);
    CHECK(t.counters == Counters{});
    CHECK_FALSE(t.counters.drops);
    CHECK(t.paths[0].counters == Counters{});
}

TEST_CASE("model: last_rx_ms of U64_MAX means never")
{
    kmsg::TargetSpec s;
    s.last_rx_ms = UINT64_MAX;
    s.path_list[0].last_rx_ms = UINT64_MAX;
    Target t = parse(s);
    CHECK_FALSE(t.last_rx_ms);
    CHECK_FALSE(t.paths[0].last_rx_ms);
}

TEST_CASE("model: malformed targets are rejected")
{
    kmsg::TargetSpec s;
    SUBCASE("MAC of 5 bytes")
    {
        s.path_list[0].mac = {1, 2, 3, 4, 5};
        CHECK_THROWS_AS(parse(s), ParseError);
    }
    SUBCASE("MAC of 7 bytes")
    {
        s.path_list[0].mac = {1, 2, 3, 4, 5, 6, 7};
        CHECK_THROWS_AS(parse(s), ParseError);
    }
    SUBCASE("config over 1024 bytes")
    {
        s.config = std::string(AOE_CONFIG_MAX + 1, 'c');
        CHECK_THROWS_AS(parse(s), ParseError);
    }
    SUBCASE("missing shelf")
    {
        s.shelf.reset();
        CHECK_THROWS_WITH_AS(parse(s), "target message without AOE_A_SHELF", ParseError);
    }
    SUBCASE("missing slot")
    {
        s.slot.reset();
        CHECK_THROWS_AS(parse(s), ParseError);
    }
    SUBCASE("broadcast address")
    {
        s.shelf = 0xffff;
        CHECK_THROWS_AS(parse(s), ParseError);
    }
    SUBCASE("interface name longer than IFNAMSIZ")
    {
        s.path_list[0].ifname = std::string(16, 'x');  // 17 bytes with the NUL
        CHECK_THROWS_AS(parse(s), ParseError);
    }
}

TEST_CASE("model: config of exactly 1024 bytes, raw bytes kept")
{
    kmsg::TargetSpec s;
    s.config = std::string(AOE_CONFIG_MAX, 'c');
    CHECK(parse(s).config->size() == AOE_CONFIG_MAX);
    s.config = std::string("a\0b\xff", 4);
    CHECK(parse(s).config == std::string("a\0b\xff", 4));
    s.config.clear();
    CHECK(parse(s).config == "");
}

TEST_CASE("model: strings must be NUL-terminated")
{
    kmsg::Msg m(AOE_CMD_GET_TARGET);
    REQUIRE(nla_put_u16(m.get(), AOE_A_SHELF, 1) == 0);
    REQUIRE(nla_put_u8(m.get(), AOE_A_SLOT, 2) == 0);
    REQUIRE(nla_put(m.get(), AOE_A_DEVICE, 4, "e1.2") == 0);  // no NUL
    CHECK_THROWS_AS(parse_target_message(m.hdr()), ParseError);
}

TEST_CASE("model: a path without MAC, a bad drop counter and trailing garbage are rejected")
{
    SUBCASE("path without MAC")
    {
        kmsg::Msg m(AOE_CMD_GET_TARGET);
        REQUIRE(nla_put_u16(m.get(), AOE_A_SHELF, 1) == 0);
        REQUIRE(nla_put_u8(m.get(), AOE_A_SLOT, 2) == 0);
        nlattr* paths = nla_nest_start(m.get(), AOE_A_PATHS);
        nlattr* p = nla_nest_start(m.get(), 0);
        REQUIRE(nla_put_u32(m.get(), AOE_PATH_A_IFINDEX, 3) == 0);
        kmsg::nest_end(m.get(), p);
        kmsg::nest_end(m.get(), paths);
        CHECK_THROWS_WITH_AS(parse_target_message(m.hdr()), "path without AOE_PATH_A_MAC",
                             ParseError);
    }
    SUBCASE("drop counter of 4 bytes")
    {
        kmsg::Msg m(AOE_CMD_GET_INFO);
        nlattr* d = nla_nest_start(m.get(), AOE_A_DROPS);
        REQUIRE(nla_put_u32(m.get(), AOE_DROP_SHORT, 1) == 0);
        kmsg::nest_end(m.get(), d);
        CHECK_THROWS_AS(parse_info_message(m.hdr()), ParseError);
    }
    SUBCASE("garbage after the last path")
    {
        kmsg::TargetSpec s;
        kmsg::Msg m(AOE_CMD_GET_TARGET);
        kmsg::put_target(m.get(), s);
        // Grow the paths nest by 4 bytes that are not an attribute.
        nlattr* paths = nlmsg_find_attr(m.hdr(), GENL_HDRLEN, AOE_A_PATHS);
        REQUIRE(paths);
        REQUIRE(nlmsg_reserve(m.get(), 4, 4));
        paths->nla_len += 4;
        CHECK_THROWS_AS(parse_target_message(m.hdr()), ParseError);
    }
    SUBCASE("truncated message")
    {
        kmsg::Msg m(AOE_CMD_GET_TARGET);
        m.hdr()->nlmsg_len = NLMSG_HDRLEN + 2;
        CHECK_THROWS_AS(parse_target_message(m.hdr()), ParseError);
    }
}

TEST_CASE("model: unknown attributes are ignored (newer module)")
{
    kmsg::Msg m(AOE_CMD_GET_TARGET);
    kmsg::TargetSpec s;
    kmsg::put_target(m.get(), s);
    REQUIRE(nla_put_u32(m.get(), AOE_A_MAX + 3, 42) == 0);
    REQUIRE(nla_put_string(m.get(), AOE_A_MAX + 9, "future") == 0);
    Target t = parse_target_message(m.hdr());
    CHECK(t.device == "e1.2");

    kmsg::Msg i(AOE_CMD_GET_INFO);
    nlattr* d = nla_nest_start(i.get(), AOE_A_DROPS);
    kmsg::put_u64_64bit(i.get(), AOE_DROP_MAX + 5, 9, AOE_DROP_PAD);
    kmsg::nest_end(i.get(), d);
    nlattr* ifs = nla_nest_start(i.get(), AOE_A_INTERFACES);
    nlattr* one = nla_nest_start(i.get(), 0);
    REQUIRE(nla_put_string(i.get(), AOE_IF_A_IFNAME, "eth0") == 0);
    REQUIRE(nla_put_u32(i.get(), AOE_IF_A_MAX + 1, 1) == 0);
    kmsg::nest_end(i.get(), one);
    kmsg::nest_end(i.get(), ifs);
    ModuleInfo info = parse_info_message(i.hdr());
    REQUIRE(info.drops);
    CHECK(info.drops->at(AOE_DROP_MAX + 5) == 9u);
    CHECK(drop_reason_name(AOE_DROP_MAX + 5) == "reason_" + std::to_string(AOE_DROP_MAX + 5));
    REQUIRE(info.interfaces.size() == 1);
    CHECK(info.interfaces[0].name == "eth0");
}

TEST_CASE("model: module information")
{
    kmsg::Msg m(AOE_CMD_GET_INFO);
    REQUIRE(nla_put_string(m.get(), AOE_A_VERSION, "0.1.0") == 0);
    REQUIRE(nla_put_string(m.get(), AOE_A_IFLIST, "a0 a1") == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_DEADSECS, 180) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_MAXOUT, 64) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_DYNDEVS, 1) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_MAXSECTORS, 0) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_FAST_FAIL, 5) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_FLUSH_MODE, AOE_FLUSH_MODE_NEVER) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_NTARGETS, 2) == 0);
    REQUIRE(nla_put_u32(m.get(), AOE_A_GENERATION, 9) == 0);
    kmsg::put_u64_64bit(m.get(), AOE_A_EVICTIONS, 977, AOE_A_PAD);
    kmsg::put_drops(m.get(), AOE_A_DROPS, {{AOE_DROP_IFACE, 12}, {AOE_DROP_SHORT, 0}});
    nlattr* ifs = nla_nest_start(m.get(), AOE_A_INTERFACES);
    for (auto [idx, name, mtu, up] : {std::tuple{3u, "a0", 1500u, true},
                                      std::tuple{4u, "a1", 9000u, false}}) {
        nlattr* one = nla_nest_start(m.get(), 0);
        REQUIRE(nla_put_u32(m.get(), AOE_IF_A_IFINDEX, idx) == 0);
        REQUIRE(nla_put_string(m.get(), AOE_IF_A_IFNAME, name) == 0);
        REQUIRE(nla_put_u32(m.get(), AOE_IF_A_MTU, mtu) == 0);
        if (up)
            REQUIRE(nla_put_flag(m.get(), AOE_IF_A_UP) == 0);
        kmsg::nest_end(m.get(), one);
    }
    kmsg::nest_end(m.get(), ifs);

    ModuleInfo info = parse_info_message(m.hdr());
    CHECK(info.version == "0.1.0");
    CHECK(info.iflist == "a0 a1");
    CHECK(info.deadsecs == 180u);
    CHECK(info.maxout == 64u);
    CHECK(info.dyndevs == 1u);
    CHECK(info.maxsectors == 0u);
    CHECK(info.fast_fail == 5u);
    CHECK(info.flush_mode == uint32_t(AOE_FLUSH_MODE_NEVER));
    CHECK(info.ntargets == 2u);
    CHECK(info.generation == 9u);
    CHECK(info.evictions == 977u);
    REQUIRE(info.drops);
    CHECK(*info.drops == Drops{{AOE_DROP_IFACE, 12}});
    REQUIRE(info.interfaces.size() == 2);
    CHECK(info.interfaces[0].ifindex == 3u);
    CHECK(info.interfaces[0].mtu == 1500u);
    CHECK(info.interfaces[0].up);
    CHECK(info.interfaces[1].name == "a1");
    CHECK_FALSE(info.interfaces[1].up);
}

TEST_CASE("model: events")
{
    kmsg::TargetSpec s;
    {
        kmsg::Msg m(AOE_CMD_TARGET_NEW);
        kmsg::put_target(m.get(), s);
        Event e = parse_event_message(m.hdr());
        CHECK(e.cmd == AOE_CMD_TARGET_NEW);
        CHECK(event_name(e.cmd) == "new");
        CHECK(e.target.device == "e1.2");
        CHECK(e.target.paths.size() == 1);
    }
    {
        s.paths = false;
        kmsg::Msg m(AOE_CMD_TARGET_GONE);
        kmsg::put_target(m.get(), s);
        Event e = parse_event_message(m.hdr());
        CHECK(event_name(e.cmd) == "gone");
        CHECK(e.target.paths.empty());
    }
    {
        kmsg::Msg m(AOE_CMD_GET_TARGET);
        kmsg::put_target(m.get(), s);
        CHECK_THROWS_AS(parse_event_message(m.hdr()), ParseError);
    }
    {
        s.sectors = 4096;
        kmsg::Msg m(AOE_CMD_CAPACITY_CHANGED);
        kmsg::put_target(m.get(), s);
        Event e = parse_event_message(m.hdr());
        CHECK(event_name(e.cmd) == "capacity_changed");
        CHECK(e.target.sectors == 4096u);
    }
    {
        // an event a newer module adds: refused here, skipped by the listener
        kmsg::Msg m(AOE_CMD_MAX + 1);
        kmsg::put_target(m.get(), s);
        CHECK_THROWS_AS(parse_event_message(m.hdr()), ParseError);
    }
    {
        // a path refused as another device: its entry first
        s.serial = "1.2:host";
        s.conflicts.push_back({});
        s.conflicts.push_back({});
        s.conflicts[1].mac[5] = 0x0c;
        s.conflicts[1].reason = AOE_CONFLICT_CAPACITY;
        s.counters->values[AOE_CNT_A_ADDRESS_CONFLICTS] = 2;
        kmsg::Msg m(AOE_CMD_ADDRESS_CONFLICT);
        kmsg::put_target(m.get(), s);
        Event e = parse_event_message(m.hdr());
        CHECK(event_name(e.cmd) == "address_conflict");
        REQUIRE(e.target.conflicts.size() == 2);
        const Conflict& c = e.target.conflicts[0];
        CHECK(c.ifindex == 4u);
        CHECK(c.mac == Mac{0x02, 0, 0, 0, 0, 0x0b});
        CHECK(c.serial == "1.2:impostor");
        CHECK(c.reason == uint32_t(AOE_CONFLICT_SERIAL));
        CHECK(c.age_ms == 1500u);
        CHECK(c.expires_ms == 298500u);
        CHECK(e.target.conflicts[1].reason == uint32_t(AOE_CONFLICT_CAPACITY));
        CHECK(e.target.counters.address_conflicts == 2u);
        s.conflicts.clear();
    }
    {
        // a conflict entry without its MAC breaks the contract
        kmsg::Msg m(AOE_CMD_ADDRESS_CONFLICT);
        kmsg::put_target(m.get(), s);
        nlattr* cs = nla_nest_start(m.get(), AOE_A_CONFLICTS);
        nlattr* e = nla_nest_start(m.get(), 0);
        kmsg::ok(nla_put_u32(m.get(), AOE_CONFLICT_A_IFINDEX, 4));
        kmsg::nest_end(m.get(), e);
        kmsg::nest_end(m.get(), cs);
        CHECK_THROWS_AS(parse_event_message(m.hdr()), ParseError);
    }
    CHECK(event_name(AOE_CMD_PATH_DOWN) == "path_down");
    CHECK(event_name(AOE_CMD_PAYLOAD_CHANGED) == "payload_changed");
    CHECK(event_name(AOE_CMD_CAPACITY_CHANGED) == "capacity_changed");
    CHECK(event_name(200) == "cmd_200");
}

TEST_CASE("model: names")
{
    const char* reasons[] = {"short",      "version",     "not_response", "reserved_flags",
                             "error",      "bad_address", "user_tag",     "unknown_cmd",
                             "bad_config", "iface",       "no_target",    "no_tag",
                             "wrong_path", "bad_length",  "no_memory",    "too_many",
                             "late",       "bad_identify", "address_conflict"};
    static_assert(std::size(reasons) == AOE_DROP_MAX - AOE_DROP_SHORT + 1);
    for (unsigned r = AOE_DROP_SHORT; r <= AOE_DROP_MAX; ++r)
        CHECK(drop_reason_name(r) == reasons[r - AOE_DROP_SHORT]);
    CHECK(drop_reason_name(0) == "reason_0");
    CHECK(drop_reason_name(99) == "reason_99");
    CHECK(target_state_name(AOE_TARGET_STATE_INIT) == "init");
    CHECK(target_state_name(AOE_TARGET_STATE_UP) == "up");
    CHECK(target_state_name(AOE_TARGET_STATE_DOWN) == "down");
    CHECK(target_state_name(9) == "state_9");
    CHECK(path_state_name(AOE_PATH_STATE_UP) == "up");
    CHECK(path_state_name(AOE_PATH_STATE_DOWN) == "down");
    CHECK(path_state_name(AOE_PATH_STATE_CANDIDATE) == "candidate");
    CHECK(conflict_reason_name(AOE_CONFLICT_SERIAL) == "serial");
    CHECK(conflict_reason_name(AOE_CONFLICT_CAPACITY) == "capacity");
    CHECK(conflict_reason_name(0) == "reason_0");
    CHECK(flush_mode_name(AOE_FLUSH_MODE_DEFAULT) == "default");
    CHECK(flush_mode_name(AOE_FLUSH_MODE_AUTO) == "auto");
    CHECK(flush_mode_name(AOE_FLUSH_MODE_ALWAYS) == "always");
    CHECK(flush_mode_name(AOE_FLUSH_MODE_NEVER) == "never");
    CHECK(flush_mode_name(7) == "mode_7");
    for (uint32_t m = 0; m <= AOE_FLUSH_MODE_MAX; ++m)
        CHECK(parse_flush_mode(flush_mode_name(m)) == m);
    CHECK_FALSE(parse_flush_mode("sometimes"));
    CHECK_FALSE(parse_flush_mode(""));
    CHECK(device_name(0, 0) == "e0.0");
    CHECK(device_name(65534, 254) == "e65534.254");
}
