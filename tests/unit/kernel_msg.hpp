// Builds aoe generic netlink messages in memory with libnl exactly as the
// module does (kmod/netlink.c, kmod/uapi/aoe_netlink.h): u64 attributes
// padded to 8 bytes like nla_put_u64_64bit(), list entries nested with type 0,
// drops as one u64 per non-zero reason.
#pragma once

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "aoe_netlink.h"
#include "core/netlink.hpp"

namespace kmsg {

inline void ok(int err)
{
    if (err < 0)
        throw std::runtime_error("building a test message failed");
}

// A generic netlink message of family 0x1a as the kernel sends it.
struct Msg {
    // Room for a whole 16-path target (libnl's default is one page).
    aoe::nl::MsgPtr msg{nlmsg_alloc_size(64 * 1024)};

    explicit Msg(uint8_t cmd, int flags = 0)
    {
        if (!msg)
            throw std::runtime_error("nlmsg_alloc_size failed");
        if (!genlmsg_put(msg.get(), 0, 1, 0x1a, 0, flags, cmd, AOE_GENL_VERSION))
            throw std::runtime_error("genlmsg_put failed");
    }
    nl_msg* get() { return msg.get(); }
    nlmsghdr* hdr() { return nlmsg_hdr(msg.get()); }
};

// The kernel's nla_nest_end(): unlike libnl's, it keeps an empty nest.
inline void nest_end(nl_msg* m, nlattr* start)
{
    auto* tail = reinterpret_cast<unsigned char*>(nlmsg_tail(nlmsg_hdr(m)));
    start->nla_len = static_cast<uint16_t>(tail - reinterpret_cast<unsigned char*>(start));
}

// nla_put_u64_64bit(): a zero-length pad attribute first when the u64
// payload would not be 8-byte aligned.
inline void put_u64_64bit(nl_msg* m, int type, uint64_t v, int pad)
{
    nlmsghdr* h = nlmsg_hdr(m);
    auto tail = reinterpret_cast<uintptr_t>(h) + NLMSG_ALIGN(h->nlmsg_len);
    if ((tail + NLA_HDRLEN) % 8)
        ok(nla_put(m, pad, 0, nullptr));
    ok(nla_put_u64(m, type, v));
}

inline void put_drops(nl_msg* m, int attr, const std::map<int, uint64_t>& drops)
{
    nlattr* nest = nla_nest_start(m, attr);
    for (const auto& [reason, n] : drops)
        if (n)
            put_u64_64bit(m, reason, n, AOE_DROP_PAD);
    nest_end(m, nest);
}

struct CountersSpec {
    std::map<int, uint64_t> values;  // AOE_CNT_A_* -> value (only these are sent)
    std::optional<std::map<int, uint64_t>> drops;
};

inline void put_counters(nl_msg* m, int attr, const CountersSpec& c)
{
    nlattr* nest = nla_nest_start(m, attr);
    for (const auto& [type, v] : c.values)
        put_u64_64bit(m, type, v, AOE_CNT_A_PAD);
    if (c.drops)
        put_drops(m, AOE_CNT_A_DROPS, *c.drops);
    nest_end(m, nest);
}

struct PathSpec {
    uint32_t ifindex = 3;
    std::string ifname = "a0";
    std::vector<uint8_t> mac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
    uint32_t state = AOE_PATH_STATE_UP;
    uint16_t bufcnt = 16;
    uint16_t fwver = 0x4019;
    uint8_t maxsect = 17;
    uint32_t mtu = 1500;
    uint32_t payload = 1024;
    std::optional<uint32_t> rtt_avg_us, rtt_dev_us, rtt_min_us, rto_us, window, outstanding;
    uint64_t last_rx_ms = 120;
    std::optional<CountersSpec> counters = CountersSpec{
        {{AOE_CNT_A_FRAMES_SENT, 10}, {AOE_CNT_A_FRAMES_RECEIVED, 9}}, std::map<int, uint64_t>{}};
};

inline void put_path(nl_msg* m, const PathSpec& p)
{
    nlattr* nest = nla_nest_start(m, 0);
    ok(nla_put_u32(m, AOE_PATH_A_IFINDEX, p.ifindex));
    ok(nla_put_string(m, AOE_PATH_A_IFNAME, p.ifname.c_str()));
    ok(nla_put(m, AOE_PATH_A_MAC, static_cast<int>(p.mac.size()), p.mac.data()));
    ok(nla_put_u32(m, AOE_PATH_A_STATE, p.state));
    ok(nla_put_u16(m, AOE_PATH_A_BUFCNT, p.bufcnt));
    ok(nla_put_u16(m, AOE_PATH_A_FWVER, p.fwver));
    ok(nla_put_u8(m, AOE_PATH_A_MAXSECT, p.maxsect));
    ok(nla_put_u32(m, AOE_PATH_A_MTU, p.mtu));
    ok(nla_put_u32(m, AOE_PATH_A_PAYLOAD, p.payload));
    auto opt32 = [&](int type, const std::optional<uint32_t>& v) {
        if (v)
            ok(nla_put_u32(m, type, *v));
    };
    opt32(AOE_PATH_A_RTT_AVG_US, p.rtt_avg_us);
    opt32(AOE_PATH_A_RTT_DEV_US, p.rtt_dev_us);
    opt32(AOE_PATH_A_RTT_MIN_US, p.rtt_min_us);
    opt32(AOE_PATH_A_RTO_US, p.rto_us);
    opt32(AOE_PATH_A_WINDOW, p.window);
    opt32(AOE_PATH_A_OUTSTANDING, p.outstanding);
    put_u64_64bit(m, AOE_PATH_A_LAST_RX_MS, p.last_rx_ms, AOE_PATH_A_PAD);
    if (p.counters)
        put_counters(m, AOE_PATH_A_COUNTERS, *p.counters);
    nest_end(m, nest);
}

struct TargetSpec {
    uint32_t generation = 7;
    std::optional<uint16_t> shelf = 1;
    std::optional<uint8_t> slot = 2;
    bool device = true;
    uint32_t state = AOE_TARGET_STATE_UP;
    std::optional<uint64_t> sectors;
    uint32_t payload = 1024;
    std::optional<std::string> model, serial, firmware;
    bool lba48 = false;
    std::string config = "vblade";
    uint64_t last_rx_ms = 120;
    std::optional<uint32_t> outstanding;
    // failure policy (sent only when set)
    std::optional<uint32_t> deadsecs, fast_fail, policy;
    std::optional<uint64_t> fast_fails;
    std::optional<CountersSpec> counters = CountersSpec{
        {{AOE_CNT_A_FRAMES_SENT, 20}, {AOE_CNT_A_FRAMES_RECEIVED, 18}}, std::map<int, uint64_t>{}};
    bool paths = true;
    std::vector<PathSpec> path_list = {PathSpec{}};
    // AOE_A_CONFLICTS entries: ifindex, MAC, serial, reason (sent when any).
    struct ConflictSpec {
        uint32_t ifindex = 4;
        std::vector<uint8_t> mac = {0x02, 0, 0, 0, 0, 0x0b};
        std::string serial = "1.2:impostor";
        uint32_t reason = AOE_CONFLICT_SERIAL;
        uint32_t age_ms = 1500, expires_ms = 298500;
    };
    std::vector<ConflictSpec> conflicts;
    // Split dumps (uapi "Split targets"): sent only when set.
    std::optional<uint32_t> path_count, path_first;
    bool continuation = false;  // only the address, AOE_A_PATH_* and AOE_A_PATHS
};

inline void put_target(nl_msg* m, const TargetSpec& t)
{
    ok(nla_put_u32(m, AOE_A_GENERATION, t.generation));
    if (t.shelf)
        ok(nla_put_u16(m, AOE_A_SHELF, *t.shelf));
    if (t.slot)
        ok(nla_put_u8(m, AOE_A_SLOT, *t.slot));
    if (t.device && t.shelf && t.slot) {
        std::string name = "e" + std::to_string(*t.shelf) + "." + std::to_string(*t.slot);
        ok(nla_put_string(m, AOE_A_DEVICE, name.c_str()));
    }
    if (t.path_count)
        ok(nla_put_u32(m, AOE_A_PATH_COUNT, *t.path_count));
    if (t.continuation) {
        if (t.path_first)
            ok(nla_put_u32(m, AOE_A_PATH_FIRST, *t.path_first));
        nlattr* nest = nla_nest_start(m, AOE_A_PATHS);
        for (const auto& p : t.path_list)
            put_path(m, p);
        nest_end(m, nest);
        return;
    }
    ok(nla_put_u32(m, AOE_A_STATE, t.state));
    if (t.sectors)
        put_u64_64bit(m, AOE_A_SECTORS, *t.sectors, AOE_A_PAD);
    ok(nla_put_u32(m, AOE_A_PAYLOAD, t.payload));
    if (t.model)
        ok(nla_put_string(m, AOE_A_MODEL, t.model->c_str()));
    if (t.serial)
        ok(nla_put_string(m, AOE_A_SERIAL, t.serial->c_str()));
    if (t.firmware)
        ok(nla_put_string(m, AOE_A_FIRMWARE, t.firmware->c_str()));
    if (t.lba48)
        ok(nla_put_flag(m, AOE_A_LBA48));
    ok(nla_put(m, AOE_A_CONFIG, static_cast<int>(t.config.size()), t.config.data()));
    put_u64_64bit(m, AOE_A_LAST_RX_MS, t.last_rx_ms, AOE_A_PAD);
    if (t.outstanding)
        ok(nla_put_u32(m, AOE_A_OUTSTANDING, *t.outstanding));
    if (t.deadsecs)
        ok(nla_put_u32(m, AOE_A_DEADSECS, *t.deadsecs));
    if (t.fast_fail)
        ok(nla_put_u32(m, AOE_A_FAST_FAIL, *t.fast_fail));
    if (t.policy)
        ok(nla_put_u32(m, AOE_A_POLICY, *t.policy));
    if (t.fast_fails)
        put_u64_64bit(m, AOE_A_FAST_FAILS, *t.fast_fails, AOE_A_PAD);
    if (t.counters)
        put_counters(m, AOE_A_COUNTERS, *t.counters);
    if (!t.conflicts.empty()) {
        nlattr* cs = nla_nest_start(m, AOE_A_CONFLICTS);
        for (const auto& c : t.conflicts) {
            nlattr* e = nla_nest_start(m, 0);
            ok(nla_put_u32(m, AOE_CONFLICT_A_IFINDEX, c.ifindex));
            ok(nla_put(m, AOE_CONFLICT_A_MAC, static_cast<int>(c.mac.size()), c.mac.data()));
            ok(nla_put_string(m, AOE_CONFLICT_A_SERIAL, c.serial.c_str()));
            ok(nla_put_u32(m, AOE_CONFLICT_A_REASON, c.reason));
            ok(nla_put_u32(m, AOE_CONFLICT_A_AGE_MS, c.age_ms));
            ok(nla_put_u32(m, AOE_CONFLICT_A_EXPIRES_MS, c.expires_ms));
            nest_end(m, e);
        }
        nest_end(m, cs);
    }
    if (t.path_first)
        ok(nla_put_u32(m, AOE_A_PATH_FIRST, *t.path_first));
    if (!t.paths)
        return;
    nlattr* nest = nla_nest_start(m, AOE_A_PATHS);
    for (const auto& p : t.path_list)
        put_path(m, p);
    nest_end(m, nest);
}

// Total length of a message (nlmsghdr included), as it takes in a dump skb.
inline size_t msg_size(Msg& m)
{
    return NLMSG_ALIGN(m.hdr()->nlmsg_len);
}

// The module's GET_TARGET dump of one target for a reader that reassembles
// (kmod/netlink.c dump_target()), with at most `limit` bytes per message:
// the first message has every target attribute and the paths that fit,
// each continuation the address and the next paths that fit. Every message
// carries at least one path when paths are left.
inline std::vector<Msg> split_target(const TargetSpec& t, size_t limit)
{
    auto build = [&](size_t first, size_t k) {
        TargetSpec part = t;
        part.path_list.assign(t.path_list.begin() + static_cast<long>(first),
                              t.path_list.begin() + static_cast<long>(first + k));
        part.path_count = static_cast<uint32_t>(t.path_list.size());
        part.path_first = static_cast<uint32_t>(first);
        part.continuation = first > 0;
        Msg m(AOE_CMD_GET_TARGET, NLM_F_MULTI);
        put_target(m.get(), part);
        return m;
    };
    std::vector<Msg> out;
    size_t first = 0, n = t.path_list.size();
    do {
        size_t k = 0;
        while (first + k < n) {
            Msg m = build(first, k + 1);
            if (msg_size(m) > limit)
                break;
            ++k;
        }
        if (k == 0 && first < n)
            throw std::runtime_error("one path does not fit a dump message");
        out.push_back(build(first, k));
        first += k;
    } while (first < n);
    return out;
}

}  // namespace kmsg
