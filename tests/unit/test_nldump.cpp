// Unit tests for the reassembly of split GET_TARGET dumps
// (userland/lib/core/model.cpp TargetDump; contract in kmod/uapi/aoe_netlink.h,
// "Split targets"): a target with 16 paths and a 1024-byte config string cut
// into messages the way kmod/netlink.c cuts it for a 4 KiB receive buffer.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kernel_msg.hpp"
#include "core/model.hpp"
#include "core/netlink.hpp"

using namespace aoe;

namespace {

// The smallest skb the kernel fills in a dump: NLMSG_GOODSIZE with 4 KiB
// pages on x86-64 (4096 minus the 320-byte struct skb_shared_info). A reader
// whose recvmsg() buffer is 4096 bytes gets skbs of at most 4096 bytes.
constexpr size_t kGoodSize = 3776;

std::string config_1k()
{
    std::string s;
    for (int i = 0; s.size() < AOE_CONFIG_MAX; ++i)
        s += "cfg" + std::to_string(i) + "|";
    s.resize(AOE_CONFIG_MAX);
    return s;
}

kmsg::CountersSpec all_counters(uint64_t base)
{
    kmsg::CountersSpec c;
    for (int a = AOE_CNT_A_FRAMES_SENT; a <= AOE_CNT_A_ATA_ERRORS; ++a)
        c.values[a] = base + static_cast<uint64_t>(a);
    std::map<int, uint64_t> drops;
    for (int r = AOE_DROP_PAD + 1; r <= AOE_DROP_MAX; ++r)
        drops[r] = UINT64_MAX - static_cast<uint64_t>(r);
    c.drops = drops;
    return c;
}

// The largest path the module sends: every attribute, every counter, every
// drop reason, a 15-character interface name.
kmsg::PathSpec big_path(int i)
{
    kmsg::PathSpec p;
    p.ifindex = static_cast<uint32_t>(10 + i / 4);
    p.ifname = "veth-long-nam" + std::to_string(i / 4);
    p.ifname.resize(15, 'x');
    p.mac = {0x02, 0, 0, 0, static_cast<uint8_t>(i / 4), static_cast<uint8_t>(i % 4 + 1)};
    p.rtt_avg_us = 100;
    p.rtt_dev_us = 10;
    p.rtt_min_us = 50;
    p.rto_us = 200000;
    p.window = 16;
    p.outstanding = 1;
    p.last_rx_ms = 1000 + static_cast<uint64_t>(i);
    p.counters = all_counters(1000 * static_cast<uint64_t>(i));
    return p;
}

kmsg::TargetSpec big_target(uint16_t shelf, uint8_t slot, int npaths)
{
    kmsg::TargetSpec t;
    t.shelf = shelf;
    t.slot = slot;
    t.sectors = 1ULL << 40;
    t.model = std::string(40, 'M');
    t.serial = std::string(20, 'S');
    t.firmware = std::string(8, 'F');
    t.lba48 = true;
    t.outstanding = 5;
    t.config = config_1k();
    t.counters = all_counters(7);
    t.path_list.clear();
    for (int i = 0; i < npaths; ++i)
        t.path_list.push_back(big_path(i));
    return t;
}

std::vector<Target> reassemble(std::vector<kmsg::Msg>& msgs)
{
    TargetDump dump;
    for (auto& m : msgs)
        dump.add(m.hdr());
    return std::move(dump).finish();
}

void append(std::vector<kmsg::Msg>& to, std::vector<kmsg::Msg>&& from)
{
    for (auto& m : from)
        to.push_back(std::move(m));
}

}  // namespace

TEST_CASE("nldump: one path and the target attributes fit the smallest dump message")
{
    // kmod/netlink.c BUILD_BUG_ONs an upper bound of this; here the exact
    // worst case as the module builds it.
    kmsg::TargetSpec t = big_target(65534, 254, 1);
    t.path_count = 16;
    t.path_first = 0;
    kmsg::Msg m(AOE_CMD_GET_TARGET, NLM_F_MULTI);
    kmsg::put_target(m.get(), t);
    CHECK(kmsg::msg_size(m) <= kGoodSize);
    MESSAGE("target attributes + 1 path: " << kmsg::msg_size(m) << " bytes");

    // ... while the whole target does not fit even 8 KiB: hence the split.
    kmsg::TargetSpec all = big_target(65534, 254, 16);
    kmsg::Msg whole(AOE_CMD_GET_TARGET, NLM_F_MULTI);
    kmsg::put_target(whole.get(), all);
    CHECK(kmsg::msg_size(whole) > 8192);
}

TEST_CASE("nldump: a 16-path target with a 1 KiB config string is reassembled")
{
    kmsg::TargetSpec spec = big_target(1, 2, 16);
    std::vector<kmsg::Msg> msgs = kmsg::split_target(spec, kGoodSize);
    REQUIRE(msgs.size() >= 3);
    for (auto& m : msgs)
        CHECK(kmsg::msg_size(m) <= kGoodSize);
    // A small target after it, as the module sends it (first message only).
    kmsg::TargetSpec small;
    small.shelf = 3;
    small.slot = 4;
    small.config = "small";
    append(msgs, kmsg::split_target(small, kGoodSize));

    std::vector<Target> ts = reassemble(msgs);
    REQUIRE(ts.size() == 2);
    const Target& t = ts[0];
    CHECK(t.device == "e1.2");
    CHECK(t.config == config_1k());
    CHECK(t.path_count == 16u);
    CHECK(t.model == std::string(40, 'M'));
    CHECK(t.lba48);
    CHECK(t.counters.frames_sent == 7u + AOE_CNT_A_FRAMES_SENT);
    REQUIRE(t.paths.size() == 16);
    for (size_t i = 0; i < 16; ++i) {
        CAPTURE(i);
        CHECK(t.paths[i].mac[4] == i / 4);
        CHECK(t.paths[i].mac[5] == i % 4 + 1);
        CHECK(t.paths[i].last_rx_ms == 1000 + i);
        REQUIRE(t.paths[i].counters.drops);
        CHECK(t.paths[i].counters.drops->size() == AOE_DROP_MAX - AOE_DROP_PAD);
    }
    CHECK(ts[1].device == "e3.4");
    CHECK(ts[1].config == "small");
    CHECK(ts[1].paths.size() == 1);

    // Split finer (the first message with one path) or not at all: the same.
    std::vector<kmsg::Msg> fine = kmsg::split_target(spec, 2400);
    CHECK(fine.size() > msgs.size());
    std::vector<Target> again = reassemble(fine);
    REQUIRE(again.size() == 1);
    CHECK(again[0].paths.size() == 16);
    CHECK(again[0].config == t.config);
    std::vector<kmsg::Msg> one = kmsg::split_target(spec, 65536);
    CHECK(one.size() == 1);
    CHECK(reassemble(one)[0].paths.size() == 16);
}

TEST_CASE("nldump: messages from a module without split dumps pass unchanged")
{
    std::vector<kmsg::Msg> msgs;
    for (uint8_t slot : {1, 2, 3}) {
        kmsg::TargetSpec t;
        t.slot = slot;
        msgs.emplace_back(AOE_CMD_GET_TARGET, NLM_F_MULTI);
        kmsg::put_target(msgs.back().get(), t);
    }
    std::vector<Target> ts = reassemble(msgs);
    REQUIRE(ts.size() == 3);
    CHECK(ts[2].device == "e1.3");
    CHECK_FALSE(ts[2].path_count);
    CHECK(ts[2].paths.size() == 1);
}

TEST_CASE("nldump: a broken sequence is an error, not a wrong target")
{
    kmsg::TargetSpec spec = big_target(1, 2, 16);

    SUBCASE("a continuation is lost")
    {
        std::vector<kmsg::Msg> msgs = kmsg::split_target(spec, kGoodSize);
        REQUIRE(msgs.size() >= 3);
        msgs.erase(msgs.begin() + 1);
        CHECK_THROWS_WITH_AS(reassemble(msgs),
                             doctest::Contains("target dump out of sequence: e1.2: paths from"),
                             ParseError);
    }
    SUBCASE("the dump ends inside a target")
    {
        std::vector<kmsg::Msg> msgs = kmsg::split_target(spec, kGoodSize);
        msgs.pop_back();
        CHECK_THROWS_WITH_AS(reassemble(msgs),
                             doctest::Contains("target dump ended early: e1.2 has"), ParseError);
    }
    SUBCASE("a continuation of another target")
    {
        std::vector<kmsg::Msg> msgs = kmsg::split_target(spec, kGoodSize);
        kmsg::TargetSpec other = big_target(5, 6, 16);
        std::vector<kmsg::Msg> o = kmsg::split_target(other, kGoodSize);
        msgs.insert(msgs.begin() + 1, std::move(o[1]));
        CHECK_THROWS_WITH_AS(reassemble(msgs), doctest::Contains("of e5.6 do not follow"),
                             ParseError);
    }
    SUBCASE("a continuation first")
    {
        std::vector<kmsg::Msg> msgs = kmsg::split_target(spec, kGoodSize);
        msgs.erase(msgs.begin());
        CHECK_THROWS_AS(reassemble(msgs), ParseError);
    }
    SUBCASE("a malformed continuation fails at once")
    {
        kmsg::TargetSpec cont;
        cont.shelf.reset();
        cont.continuation = true;
        cont.path_first = 3;
        kmsg::Msg m(AOE_CMD_GET_TARGET, NLM_F_MULTI);
        kmsg::put_target(m.get(), cont);
        TargetDump dump;
        CHECK_THROWS_WITH_AS(dump.add(m.hdr()),
                             "target continuation without AOE_A_SHELF/AOE_A_SLOT", ParseError);
    }
}

TEST_CASE("nldump: an event with fewer paths than the target has")
{
    kmsg::TargetSpec t = big_target(1, 2, 3);
    t.path_count = 16;
    kmsg::Msg m(AOE_CMD_TARGET_UP);
    kmsg::put_target(m.get(), t);
    Event e = parse_event_message(m.hdr());
    CHECK(e.target.paths.size() == 3);
    CHECK(e.target.path_count == 16u);
}

TEST_CASE("nldump: the dump request asks for split targets")
{
    auto req = build_get_targets(0x1a);
    auto* g = static_cast<genlmsghdr*>(nlmsg_data(nlmsg_hdr(req.get())));
    CHECK(g->version >= AOE_GENL_VERSION_SPLIT);
}
