// Parser from aoe generic netlink attributes (kmod/uapi/aoe_netlink.h) to the
// model types. Policies are strict about sizes (MAC exactly 6 bytes, config at
// most AOE_CONFIG_MAX, bounded strings) and ignore attribute types they do not
// know, so a newer module still talks to an older tool.
#include "core/model.hpp"

#include <fmt/format.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <net/if.h>

#include <cstring>

#include "aoe_netlink.h"

namespace aoe {

namespace {

// Upper bounds for strings, terminating NUL included.
constexpr uint16_t kDeviceMax = 32;   // "e65534.254"
constexpr uint16_t kIfnameMax = 16;   // IFNAMSIZ
constexpr uint16_t kAtaStringMax = 64;  // ATA model is 40 chars, serial 20, firmware 8
constexpr uint16_t kIflistMax = 4096;

// Nests are NLA_UNSPEC: libnl's NLA_NESTED wants a payload of at least one
// header, but the kernel legitimately sends empty nests (no drops yet). Their
// content is validated by the nested parse.
struct Policies {
    nla_policy attr[AOE_A_MAX + 1] = {};
    nla_policy path[AOE_PATH_A_MAX + 1] = {};
    nla_policy counter[AOE_CNT_A_MAX + 1] = {};
    nla_policy iface[AOE_IF_A_MAX + 1] = {};
    nla_policy conflict[AOE_CONFLICT_A_MAX + 1] = {};

    Policies()
    {
        auto str = [](uint16_t max) { return nla_policy{NLA_STRING, 0, max}; };
        auto fixed = [](uint16_t type) { return nla_policy{type, 0, 0}; };

        attr[AOE_A_GENERATION] = fixed(NLA_U32);
        attr[AOE_A_SHELF] = fixed(NLA_U16);
        attr[AOE_A_SLOT] = fixed(NLA_U8);
        attr[AOE_A_DEVICE] = str(kDeviceMax);
        attr[AOE_A_STATE] = fixed(NLA_U32);
        attr[AOE_A_SECTORS] = fixed(NLA_U64);
        attr[AOE_A_PAYLOAD] = fixed(NLA_U32);
        attr[AOE_A_MODEL] = str(kAtaStringMax);
        attr[AOE_A_SERIAL] = str(kAtaStringMax);
        attr[AOE_A_FIRMWARE] = str(kAtaStringMax);
        attr[AOE_A_LBA48] = {NLA_FLAG, 0, 0};
        attr[AOE_A_CONFIG] = {NLA_UNSPEC, 0, AOE_CONFIG_MAX};
        attr[AOE_A_LAST_RX_MS] = fixed(NLA_U64);
        attr[AOE_A_OUTSTANDING] = fixed(NLA_U32);
        attr[AOE_A_COUNTERS] = fixed(NLA_UNSPEC);
        attr[AOE_A_PATHS] = fixed(NLA_UNSPEC);
        attr[AOE_A_VERSION] = str(kAtaStringMax);
        attr[AOE_A_IFLIST] = str(kIflistMax);
        attr[AOE_A_DEADSECS] = fixed(NLA_U32);
        attr[AOE_A_MAXOUT] = fixed(NLA_U32);
        attr[AOE_A_DYNDEVS] = fixed(NLA_U32);
        attr[AOE_A_MAXSECTORS] = fixed(NLA_U32);
        attr[AOE_A_NTARGETS] = fixed(NLA_U32);
        attr[AOE_A_DROPS] = fixed(NLA_UNSPEC);
        attr[AOE_A_INTERFACES] = fixed(NLA_UNSPEC);
        attr[AOE_A_IFNAME] = str(kIfnameMax);
        attr[AOE_A_FLUSH_ALL] = {NLA_FLAG, 0, 0};
        attr[AOE_A_IFLIST_INHERIT] = {NLA_FLAG, 0, 0};
        attr[AOE_A_EVICTIONS] = fixed(NLA_U64);
        attr[AOE_A_PATH_COUNT] = fixed(NLA_U32);
        attr[AOE_A_PATH_FIRST] = fixed(NLA_U32);
        attr[AOE_A_FLUSH_MODE] = fixed(NLA_U32);
        attr[AOE_A_CACHE] = fixed(NLA_U32);
        attr[AOE_A_CONFLICTS] = fixed(NLA_UNSPEC);

        conflict[AOE_CONFLICT_A_IFINDEX] = fixed(NLA_U32);
        conflict[AOE_CONFLICT_A_MAC] = {NLA_UNSPEC, 6, 6};
        conflict[AOE_CONFLICT_A_SERIAL] = str(kAtaStringMax);
        conflict[AOE_CONFLICT_A_REASON] = fixed(NLA_U32);
        conflict[AOE_CONFLICT_A_AGE_MS] = fixed(NLA_U32);
        conflict[AOE_CONFLICT_A_EXPIRES_MS] = fixed(NLA_U32);
        attr[AOE_A_FAST_FAIL] = fixed(NLA_U32);
        attr[AOE_A_POLICY] = fixed(NLA_U32);
        attr[AOE_A_FAST_FAILS] = fixed(NLA_U64);

        path[AOE_PATH_A_IFINDEX] = fixed(NLA_U32);
        path[AOE_PATH_A_IFNAME] = str(kIfnameMax);
        path[AOE_PATH_A_MAC] = {NLA_UNSPEC, 6, 6};
        path[AOE_PATH_A_STATE] = fixed(NLA_U32);
        path[AOE_PATH_A_BUFCNT] = fixed(NLA_U16);
        path[AOE_PATH_A_FWVER] = fixed(NLA_U16);
        path[AOE_PATH_A_MAXSECT] = fixed(NLA_U8);
        for (int a : {AOE_PATH_A_MTU, AOE_PATH_A_PAYLOAD, AOE_PATH_A_RTT_AVG_US,
                      AOE_PATH_A_RTT_DEV_US, AOE_PATH_A_RTT_MIN_US, AOE_PATH_A_RTO_US,
                      AOE_PATH_A_WINDOW, AOE_PATH_A_OUTSTANDING})
            path[a] = fixed(NLA_U32);
        path[AOE_PATH_A_LAST_RX_MS] = fixed(NLA_U64);
        path[AOE_PATH_A_COUNTERS] = fixed(NLA_UNSPEC);
        path[AOE_PATH_A_NETNSID] = fixed(NLA_S32);

        for (const auto& f : kCounterFields)
            counter[f.attr] = fixed(NLA_U64);
        counter[AOE_CNT_A_DROPS] = fixed(NLA_UNSPEC);

        iface[AOE_IF_A_IFINDEX] = fixed(NLA_U32);
        iface[AOE_IF_A_IFNAME] = str(kIfnameMax);
        iface[AOE_IF_A_MTU] = fixed(NLA_U32);
        iface[AOE_IF_A_UP] = {NLA_FLAG, 0, 0};
    }
};

const Policies& policies()
{
    static const Policies p;
    return p;
}

template <typename T>
std::optional<T> get(nlattr* a);

template <>
std::optional<uint8_t> get(nlattr* a)
{
    return a ? std::optional<uint8_t>(nla_get_u8(a)) : std::nullopt;
}
template <>
std::optional<uint16_t> get(nlattr* a)
{
    return a ? std::optional<uint16_t>(nla_get_u16(a)) : std::nullopt;
}
template <>
std::optional<uint32_t> get(nlattr* a)
{
    return a ? std::optional<uint32_t>(nla_get_u32(a)) : std::nullopt;
}
template <>
std::optional<uint64_t> get(nlattr* a)
{
    return a ? std::optional<uint64_t>(nla_get_u64(a)) : std::nullopt;
}
template <>
std::optional<std::string> get(nlattr* a)
{
    return a ? std::optional<std::string>(nla_get_string(a)) : std::nullopt;
}

// "Milliseconds since the last answer": the module sends U64_MAX for never.
std::optional<uint64_t> get_ms_since(nlattr* a)
{
    auto v = get<uint64_t>(a);
    if (v == UINT64_MAX)
        return std::nullopt;
    return v;
}

// Calls fn(entry) for each attribute inside nest; rejects trailing garbage.
template <typename Fn>
void for_each_nested(nlattr* nest, const char* what, Fn&& fn)
{
    nlattr* pos;
    int rem;
    nla_for_each_nested(pos, nest, rem) fn(pos);
    if (rem != 0)
        throw ParseError(fmt::format("malformed {} attribute: {} bytes left over", what, rem));
}

void parse_nested(nlattr** tb, int maxtype, nlattr* nest, const nla_policy* policy,
                  const char* what)
{
    int err = nla_parse_nested(tb, maxtype, nest, const_cast<nla_policy*>(policy));
    if (err < 0)
        throw ParseError(fmt::format("invalid {} attribute: {}", what, nl_geterror(err)));
}

// AOE_A_DROPS / AOE_CNT_A_DROPS: attribute type = reason, value u64.
Drops parse_drops(nlattr* nest)
{
    Drops drops;
    for_each_nested(nest, "drops", [&](nlattr* a) {
        int reason = nla_type(a);
        if (reason == AOE_DROP_UNSPEC || reason == AOE_DROP_PAD)
            return;
        if (nla_len(a) != sizeof(uint64_t))
            throw ParseError(fmt::format("invalid drop counter for reason {}: {} bytes, want 8",
                                         drop_reason_name(static_cast<unsigned>(reason)),
                                         nla_len(a)));
        drops[static_cast<unsigned>(reason)] = nla_get_u64(a);
    });
    return drops;
}

Counters parse_counters(nlattr* nest)
{
    Counters c;
    if (!nest)
        return c;
    nlattr* tb[AOE_CNT_A_MAX + 1] = {};
    parse_nested(tb, AOE_CNT_A_MAX, nest, policies().counter, "counters");
    for (const auto& f : kCounterFields)
        c.*f.member = get<uint64_t>(tb[f.attr]);
    if (tb[AOE_CNT_A_DROPS])
        c.drops = parse_drops(tb[AOE_CNT_A_DROPS]);
    return c;
}

Path parse_path(nlattr* nest)
{
    nlattr* tb[AOE_PATH_A_MAX + 1] = {};
    parse_nested(tb, AOE_PATH_A_MAX, nest, policies().path, "path");
    if (!tb[AOE_PATH_A_MAC])
        throw ParseError("path without AOE_PATH_A_MAC");
    Path p;
    std::memcpy(p.mac.data(), nla_data(tb[AOE_PATH_A_MAC]), p.mac.size());
    p.ifindex = get<uint32_t>(tb[AOE_PATH_A_IFINDEX]);
    p.ifname = get<std::string>(tb[AOE_PATH_A_IFNAME]);
    p.state = get<uint32_t>(tb[AOE_PATH_A_STATE]);
    p.bufcnt = get<uint16_t>(tb[AOE_PATH_A_BUFCNT]);
    p.fwver = get<uint16_t>(tb[AOE_PATH_A_FWVER]);
    p.maxsect = get<uint8_t>(tb[AOE_PATH_A_MAXSECT]);
    p.mtu = get<uint32_t>(tb[AOE_PATH_A_MTU]);
    p.payload = get<uint32_t>(tb[AOE_PATH_A_PAYLOAD]);
    p.rtt_avg_us = get<uint32_t>(tb[AOE_PATH_A_RTT_AVG_US]);
    p.rtt_dev_us = get<uint32_t>(tb[AOE_PATH_A_RTT_DEV_US]);
    p.rtt_min_us = get<uint32_t>(tb[AOE_PATH_A_RTT_MIN_US]);
    p.rto_us = get<uint32_t>(tb[AOE_PATH_A_RTO_US]);
    p.window = get<uint32_t>(tb[AOE_PATH_A_WINDOW]);
    p.outstanding = get<uint32_t>(tb[AOE_PATH_A_OUTSTANDING]);
    p.last_rx_ms = get_ms_since(tb[AOE_PATH_A_LAST_RX_MS]);
    p.counters = parse_counters(tb[AOE_PATH_A_COUNTERS]);
    if (tb[AOE_PATH_A_NETNSID])
        p.netnsid = nla_get_s32(tb[AOE_PATH_A_NETNSID]);
    return p;
}

void parse_paths(nlattr** tb, std::vector<Path>& out)
{
    if (nlattr* paths = tb[AOE_A_PATHS])
        for_each_nested(paths, "paths", [&](nlattr* p) { out.push_back(parse_path(p)); });
}

Conflict parse_conflict(nlattr* nest)
{
    nlattr* tb[AOE_CONFLICT_A_MAX + 1] = {};
    parse_nested(tb, AOE_CONFLICT_A_MAX, nest, policies().conflict, "conflict");
    if (!tb[AOE_CONFLICT_A_MAC])
        throw ParseError("conflict without AOE_CONFLICT_A_MAC");
    Conflict c;
    std::memcpy(c.mac.data(), nla_data(tb[AOE_CONFLICT_A_MAC]), c.mac.size());
    c.ifindex = get<uint32_t>(tb[AOE_CONFLICT_A_IFINDEX]);
    if (c.ifindex) {
        char name[IF_NAMESIZE];
        if (if_indextoname(*c.ifindex, name))
            c.ifname = name;
    }
    c.serial = get<std::string>(tb[AOE_CONFLICT_A_SERIAL]);
    c.reason = get<uint32_t>(tb[AOE_CONFLICT_A_REASON]);
    c.age_ms = get<uint32_t>(tb[AOE_CONFLICT_A_AGE_MS]);
    c.expires_ms = get<uint32_t>(tb[AOE_CONFLICT_A_EXPIRES_MS]);
    return c;
}

Interface parse_interface(nlattr* nest)
{
    nlattr* tb[AOE_IF_A_MAX + 1] = {};
    parse_nested(tb, AOE_IF_A_MAX, nest, policies().iface, "interface");
    Interface i;
    i.ifindex = get<uint32_t>(tb[AOE_IF_A_IFINDEX]);
    i.name = get<std::string>(tb[AOE_IF_A_IFNAME]).value_or("");
    i.mtu = get<uint32_t>(tb[AOE_IF_A_MTU]);
    i.up = tb[AOE_IF_A_UP] != nullptr;
    return i;
}

void parse_message(nlmsghdr* nlh, nlattr** tb)
{
    if (!genlmsg_valid_hdr(nlh, 0))
        throw ParseError("message too short for a generic netlink header");
    int err = genlmsg_parse(nlh, 0, tb, AOE_A_MAX, const_cast<nla_policy*>(policies().attr));
    if (err < 0)
        throw ParseError(fmt::format("invalid aoe netlink message: {}", nl_geterror(err)));
}

}  // namespace

const std::array<CounterField, 20> kCounterFields = {{
    {AOE_CNT_A_FRAMES_SENT, "frames_sent", &Counters::frames_sent},
    {AOE_CNT_A_FRAMES_RECEIVED, "frames_received", &Counters::frames_received},
    {AOE_CNT_A_RETRANSMITS, "retransmits", &Counters::retransmits},
    {AOE_CNT_A_TIMEOUTS, "timeouts", &Counters::timeouts},
    {AOE_CNT_A_LOST, "lost", &Counters::lost},
    {AOE_CNT_A_BYTES_READ, "bytes_read", &Counters::bytes_read},
    {AOE_CNT_A_BYTES_WRITTEN, "bytes_written", &Counters::bytes_written},
    {AOE_CNT_A_READ_REQS, "read_reqs", &Counters::read_reqs},
    {AOE_CNT_A_WRITE_REQS, "write_reqs", &Counters::write_reqs},
    {AOE_CNT_A_ATA_ERRORS, "ata_errors", &Counters::ata_errors},
    {AOE_CNT_A_BACKOFFS, "backoffs", &Counters::backoffs},
    {AOE_CNT_A_FLUSHES_SENT, "flushes_sent", &Counters::flushes_sent},
    {AOE_CNT_A_FLUSHES_ANSWERED, "flushes_answered", &Counters::flushes_answered},
    {AOE_CNT_A_FLUSHES_FAILED, "flushes_failed", &Counters::flushes_failed},
    {AOE_CNT_A_FUA_WRITES, "fua_writes", &Counters::fua_writes},
    {AOE_CNT_A_FENCE_GHOSTS, "fence_ghosts", &Counters::fence_ghosts},
    {AOE_CNT_A_FENCE_HELD, "fence_held", &Counters::fence_held},
    {AOE_CNT_A_FENCE_HELD_US, "fence_held_us", &Counters::fence_held_us},
    {AOE_CNT_A_RESERVE_CONFLICTS, "reserve_conflicts", &Counters::reserve_conflicts},
    {AOE_CNT_A_ADDRESS_CONFLICTS, "address_conflicts", &Counters::address_conflicts},
}};

std::string device_name(uint16_t shelf, uint8_t slot)
{
    return fmt::format("e{}.{}", shelf, slot);
}

std::string target_state_name(uint32_t state)
{
    switch (state) {
    case AOE_TARGET_STATE_INIT:
        return "init";
    case AOE_TARGET_STATE_UP:
        return "up";
    case AOE_TARGET_STATE_DOWN:
        return "down";
    default:
        return fmt::format("state_{}", state);
    }
}

std::string path_state_name(uint32_t state)
{
    switch (state) {
    case AOE_PATH_STATE_UP:
        return "up";
    case AOE_PATH_STATE_DOWN:
        return "down";
    case AOE_PATH_STATE_CANDIDATE:
        return "candidate";
    default:
        return fmt::format("state_{}", state);
    }
}

namespace {
constexpr const char* kFlushModes[] = {"default", "auto", "always", "never"};
static_assert(std::size(kFlushModes) == AOE_FLUSH_MODE_MAX + 1, "a flush mode has no name");
}  // namespace

std::string flush_mode_name(uint32_t mode)
{
    if (mode < std::size(kFlushModes))
        return kFlushModes[mode];
    return fmt::format("mode_{}", mode);
}

std::optional<uint32_t> parse_flush_mode(std::string_view name)
{
    for (uint32_t m = 0; m < std::size(kFlushModes); ++m)
        if (name == kFlushModes[m])
            return m;
    return std::nullopt;
}

std::string drop_reason_name(unsigned reason)
{
    static const char* const names[] = {
        nullptr,        nullptr,       "short",      "version",     "not_response",
        "reserved_flags", "error",     "bad_address", "user_tag",   "unknown_cmd",
        "bad_config",   "iface",       "no_target",  "no_tag",      "wrong_path",
        "bad_length",   "no_memory",   "too_many",   "late",        "bad_identify",
        "address_conflict",
    };
    static_assert(std::size(names) == AOE_DROP_MAX + 1, "a drop reason has no name");
    if (reason < std::size(names) && names[reason])
        return names[reason];
    return fmt::format("reason_{}", reason);
}

std::string conflict_reason_name(uint32_t reason)
{
    switch (reason) {
    case AOE_CONFLICT_SERIAL:
        return "serial";
    case AOE_CONFLICT_MODEL:
        return "model";
    case AOE_CONFLICT_LBA48:
        return "lba48";
    case AOE_CONFLICT_CAPACITY:
        return "capacity";
    default:
        return fmt::format("reason_{}", reason);
    }
}

bool is_event_cmd(uint8_t cmd)
{
    return (cmd >= AOE_CMD_TARGET_NEW && cmd <= AOE_CMD_CAPACITY_CHANGED) ||
           cmd == AOE_CMD_ADDRESS_CONFLICT;
}

std::string event_name(uint8_t cmd)
{
    switch (cmd) {
    case AOE_CMD_TARGET_NEW:
        return "new";
    case AOE_CMD_TARGET_UP:
        return "up";
    case AOE_CMD_TARGET_DOWN:
        return "down";
    case AOE_CMD_TARGET_GONE:
        return "gone";
    case AOE_CMD_PATH_UP:
        return "path_up";
    case AOE_CMD_PATH_DOWN:
        return "path_down";
    case AOE_CMD_PAYLOAD_CHANGED:
        return "payload_changed";
    case AOE_CMD_CAPACITY_CHANGED:
        return "capacity_changed";
    case AOE_CMD_ADDRESS_CONFLICT:
        return "address_conflict";
    default:
        return fmt::format("cmd_{}", cmd);
    }
}

Target parse_target(nlattr** tb)
{
    if (!tb[AOE_A_SHELF])
        throw ParseError("target message without AOE_A_SHELF");
    if (!tb[AOE_A_SLOT])
        throw ParseError("target message without AOE_A_SLOT");
    Target t;
    t.shelf = nla_get_u16(tb[AOE_A_SHELF]);
    t.slot = nla_get_u8(tb[AOE_A_SLOT]);
    if (t.shelf == 0xffff || t.slot == 0xff)
        throw ParseError(fmt::format("target message with broadcast address {}.{}", t.shelf,
                                     t.slot));
    t.device = get<std::string>(tb[AOE_A_DEVICE]).value_or(device_name(t.shelf, t.slot));
    t.generation = get<uint32_t>(tb[AOE_A_GENERATION]);
    t.state = get<uint32_t>(tb[AOE_A_STATE]);
    t.sectors = get<uint64_t>(tb[AOE_A_SECTORS]);
    t.payload = get<uint32_t>(tb[AOE_A_PAYLOAD]);
    t.model = get<std::string>(tb[AOE_A_MODEL]);
    t.serial = get<std::string>(tb[AOE_A_SERIAL]);
    t.firmware = get<std::string>(tb[AOE_A_FIRMWARE]);
    t.lba48 = tb[AOE_A_LBA48] != nullptr;
    if (nlattr* a = tb[AOE_A_CONFIG])
        t.config.emplace(static_cast<const char*>(nla_data(a)), static_cast<size_t>(nla_len(a)));
    t.last_rx_ms = get_ms_since(tb[AOE_A_LAST_RX_MS]);
    t.outstanding = get<uint32_t>(tb[AOE_A_OUTSTANDING]);
    t.flush_mode = get<uint32_t>(tb[AOE_A_FLUSH_MODE]);
    t.cache = get<uint32_t>(tb[AOE_A_CACHE]);
    t.deadsecs = get<uint32_t>(tb[AOE_A_DEADSECS]);
    t.fast_fail = get<uint32_t>(tb[AOE_A_FAST_FAIL]);
    t.policy = get<uint32_t>(tb[AOE_A_POLICY]);
    t.fast_fails = get<uint64_t>(tb[AOE_A_FAST_FAILS]);
    t.counters = parse_counters(tb[AOE_A_COUNTERS]);
    parse_paths(tb, t.paths);
    if (nlattr* cs = tb[AOE_A_CONFLICTS])
        for_each_nested(cs, "conflicts",
                        [&](nlattr* c) { t.conflicts.push_back(parse_conflict(c)); });
    t.path_count = get<uint32_t>(tb[AOE_A_PATH_COUNT]);
    return t;
}

ModuleInfo parse_info(nlattr** tb)
{
    ModuleInfo m;
    m.version = get<std::string>(tb[AOE_A_VERSION]);
    m.iflist = get<std::string>(tb[AOE_A_IFLIST]);
    m.iflist_inherited = tb[AOE_A_IFLIST_INHERIT] != nullptr;
    m.deadsecs = get<uint32_t>(tb[AOE_A_DEADSECS]);
    m.maxout = get<uint32_t>(tb[AOE_A_MAXOUT]);
    m.dyndevs = get<uint32_t>(tb[AOE_A_DYNDEVS]);
    m.maxsectors = get<uint32_t>(tb[AOE_A_MAXSECTORS]);
    m.fast_fail = get<uint32_t>(tb[AOE_A_FAST_FAIL]);
    m.flush_mode = get<uint32_t>(tb[AOE_A_FLUSH_MODE]);
    m.ntargets = get<uint32_t>(tb[AOE_A_NTARGETS]);
    m.generation = get<uint32_t>(tb[AOE_A_GENERATION]);
    m.evictions = get<uint64_t>(tb[AOE_A_EVICTIONS]);
    if (tb[AOE_A_DROPS])
        m.drops = parse_drops(tb[AOE_A_DROPS]);
    if (nlattr* ifs = tb[AOE_A_INTERFACES])
        for_each_nested(ifs, "interfaces",
                        [&](nlattr* i) { m.interfaces.push_back(parse_interface(i)); });
    return m;
}

Target parse_target_message(nlmsghdr* nlh)
{
    nlattr* tb[AOE_A_MAX + 1] = {};
    parse_message(nlh, tb);
    return parse_target(tb);
}

ModuleInfo parse_info_message(nlmsghdr* nlh)
{
    nlattr* tb[AOE_A_MAX + 1] = {};
    parse_message(nlh, tb);
    return parse_info(tb);
}

void TargetDump::add(nlmsghdr* nlh)
{
    nlattr* tb[AOE_A_MAX + 1] = {};
    parse_message(nlh, tb);
    ++messages_;
    uint32_t first = get<uint32_t>(tb[AOE_A_PATH_FIRST]).value_or(0);
    if (first == 0) {
        targets_.push_back(parse_target(tb));
        return;
    }
    // A continuation: the address and more paths of the previous target.
    if (!tb[AOE_A_SHELF] || !tb[AOE_A_SLOT])
        throw ParseError("target continuation without AOE_A_SHELF/AOE_A_SLOT");
    uint16_t shelf = nla_get_u16(tb[AOE_A_SHELF]);
    uint8_t slot = nla_get_u8(tb[AOE_A_SLOT]);
    std::vector<Path> more;
    parse_paths(tb, more);
    if (!broken_.empty())
        return;
    if (targets_.empty() || targets_.back().shelf != shelf || targets_.back().slot != slot) {
        broken_ = fmt::format("paths from {} of {} do not follow the rest of that target", first,
                              device_name(shelf, slot));
        return;
    }
    Target& t = targets_.back();
    if (first != t.paths.size()) {
        broken_ = fmt::format("{}: paths from {} arrived after {} paths", t.device, first,
                              t.paths.size());
        return;
    }
    for (auto& p : more)
        t.paths.push_back(std::move(p));
}

std::vector<Target> TargetDump::finish() &&
{
    if (!broken_.empty())
        throw ParseError(fmt::format("target dump out of sequence: {}", broken_));
    for (const auto& t : targets_)
        if (t.path_count && t.paths.size() < *t.path_count)
            throw ParseError(fmt::format("target dump ended early: {} has {} of its {} paths",
                                         t.device, t.paths.size(), *t.path_count));
    return std::move(targets_);
}

Event parse_event_message(nlmsghdr* nlh)
{
    nlattr* tb[AOE_A_MAX + 1] = {};
    parse_message(nlh, tb);
    Event e;
    e.cmd = static_cast<genlmsghdr*>(nlmsg_data(nlh))->cmd;
    if (!is_event_cmd(e.cmd))
        throw ParseError(fmt::format("not an aoe event: command {}", e.cmd));
    e.target = parse_target(tb);
    return e;
}

}  // namespace aoe
