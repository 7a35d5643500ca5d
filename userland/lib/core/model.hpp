// Plain data types for what the aoe module reports over generic netlink, and
// the parser from a received message's attributes to those types.
// The attribute contract is kmod/uapi/aoe_netlink.h.
//
// Every value the kernel may leave out is a std::optional: a missing counter
// is shown as "-" (text) or left out (JSON), never as 0.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

struct nlattr;
struct nlmsghdr;

namespace aoe {

using Mac = std::array<uint8_t, 6>;

// Frames dropped, by enum aoe_drop_reason number.
using Drops = std::map<unsigned, uint64_t>;

struct Counters {
    std::optional<uint64_t> frames_sent;
    std::optional<uint64_t> frames_received;
    std::optional<uint64_t> retransmits;
    std::optional<uint64_t> timeouts;
    std::optional<uint64_t> lost;
    std::optional<uint64_t> bytes_read;
    std::optional<uint64_t> bytes_written;
    std::optional<uint64_t> read_reqs;
    std::optional<uint64_t> write_reqs;
    std::optional<uint64_t> ata_errors;
    std::optional<uint64_t> backoffs;
    std::optional<uint64_t> flushes_sent;
    std::optional<uint64_t> flushes_answered;
    std::optional<uint64_t> flushes_failed;
    std::optional<uint64_t> fua_writes;
    // the stale-write fence (targets only)
    std::optional<uint64_t> fence_ghosts;
    std::optional<uint64_t> fence_held;
    std::optional<uint64_t> fence_held_us;
    // I/O frames answered with AoE error 6 (reserved by another initiator)
    std::optional<uint64_t> reserve_conflicts;
    // identity (targets only): paths refused as another device
    std::optional<uint64_t> address_conflicts;
    std::optional<Drops> drops;  // absent: the kernel sent no AOE_CNT_A_DROPS

    bool operator==(const Counters&) const = default;
};

// One counter attribute: its AOE_CNT_A_* type, its JSON/text name, its member.
struct CounterField {
    int attr;
    const char* name;
    std::optional<uint64_t> Counters::*member;
};
// Every scalar counter in uapi order.
extern const std::array<CounterField, 20> kCounterFields;

struct Path {
    std::optional<uint32_t> ifindex;
    // the interface's namespace, as the reader's knows it (-1: no id);
    // absent when it is the reader's own
    std::optional<int32_t> netnsid;
    std::optional<std::string> ifname;
    Mac mac{};
    std::optional<uint32_t> state;  // enum aoe_path_state
    std::optional<uint16_t> bufcnt;
    std::optional<uint16_t> fwver;
    std::optional<uint8_t> maxsect;
    std::optional<uint32_t> mtu;
    std::optional<uint32_t> payload;
    std::optional<uint32_t> rtt_avg_us;
    std::optional<uint32_t> rtt_dev_us;
    std::optional<uint32_t> rtt_min_us;
    std::optional<uint32_t> rto_us;
    std::optional<uint32_t> window;
    std::optional<uint32_t> outstanding;
    std::optional<uint64_t> last_rx_ms;  // absent or U64_MAX (never): nullopt
    Counters counters;
};

// A path refused as another device (AOE_A_CONFLICTS), while remembered.
struct Conflict {
    std::optional<uint32_t> ifindex;
    std::optional<std::string> ifname;  // from ifindex, on this host
    Mac mac{};
    std::optional<std::string> serial;  // what that device answered
    std::optional<uint32_t> reason;     // enum aoe_conflict_reason
    std::optional<uint32_t> age_ms;
    std::optional<uint32_t> expires_ms;

    bool operator==(const Conflict&) const = default;
};

struct Target {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    std::string device;  // "eS.L"
    std::optional<uint32_t> generation;
    std::optional<uint32_t> state;  // enum aoe_target_state
    std::optional<uint64_t> sectors;
    std::optional<uint32_t> payload;
    std::optional<std::string> model;
    std::optional<std::string> serial;
    std::optional<std::string> firmware;
    bool lba48 = false;
    std::optional<std::string> config;  // raw bytes, not terminated
    std::optional<uint64_t> last_rx_ms;
    std::optional<uint32_t> outstanding;
    std::optional<uint32_t> flush_mode;  // enum aoe_flush_mode, the target's own
    std::optional<uint32_t> cache;       // AOE_CACHE_* bits
    // failure policy: effective values (the target's own, else the module's)
    std::optional<uint32_t> deadsecs;
    std::optional<uint32_t> fast_fail;   // seconds, 0: off
    std::optional<uint32_t> policy;      // AOE_POLICY_* bits
    std::optional<uint64_t> fast_fails;  // times fast-fail failed its I/O
    Counters counters;
    std::vector<Path> paths;
    std::vector<Conflict> conflicts;  // newest first in an ADDRESS_CONFLICT event
    // AOE_A_PATH_COUNT: how many paths the target has; paths may hold fewer
    // (an event, or a module that could not send them all). Absent from
    // modules before the split dump.
    std::optional<uint32_t> path_count;
};

struct Interface {
    std::optional<uint32_t> ifindex;
    std::string name;
    std::optional<uint32_t> mtu;
    bool up = false;
};

struct ModuleInfo {
    std::optional<std::string> version;
    std::optional<std::string> iflist;
    bool iflist_inherited = false;  // another namespace following aoe_iflist
    std::optional<uint32_t> deadsecs;
    std::optional<uint32_t> maxout;
    std::optional<uint32_t> dyndevs;
    std::optional<uint32_t> maxsectors;
    std::optional<uint32_t> fast_fail;   // aoe_fast_fail, 0: off
    std::optional<uint32_t> flush_mode;  // aoe_flush, enum aoe_flush_mode
    std::optional<uint32_t> ntargets;
    std::optional<uint32_t> generation;
    std::optional<uint64_t> evictions;  // targets forgotten for room in a full table
    std::optional<Drops> drops;
    std::vector<Interface> interfaces;
};

struct Event {
    uint8_t cmd = 0;  // AOE_CMD_TARGET_NEW ... AOE_CMD_CAPACITY_CHANGED
    Target target;    // as much of the target as the event carries
};

// "eS.L" for shelf S, slot L, as /dev/etherd names it.
std::string device_name(uint16_t shelf, uint8_t slot);

// Lowercase names: "init"/"up"/"down" (paths also "candidate"); "state_<n>"
// for numbers this build does not know.
std::string target_state_name(uint32_t state);
std::string path_state_name(uint32_t state);
// "default", "auto", "always", "never"; "mode_<n>" for numbers this build
// does not know.
std::string flush_mode_name(uint32_t mode);
// The enum aoe_flush_mode of a name flush_mode_name() gives; nullopt if none.
std::optional<uint32_t> parse_flush_mode(std::string_view name);
// Lowercase suffix of enum aoe_drop_reason ("no_tag"); "reason_<n>" if unknown.
std::string drop_reason_name(unsigned reason);
// "serial", "model", "lba48", "capacity" (what differed); "reason_<n>" else.
std::string conflict_reason_name(uint32_t reason);
// "new", "up", "down", "gone", "path_up", "path_down", "payload_changed",
// "capacity_changed", "address_conflict"; "cmd_<n>" otherwise (a newer
// module's event).
std::string event_name(uint8_t cmd);
// True for the commands the module only multicasts.
bool is_event_cmd(uint8_t cmd);

// Parsers. tb is indexed by AOE_A_* (size AOE_A_MAX + 1) and was filled by
// genlmsg_parse() with attr_policy(); nested attributes are validated here.
// They throw ParseError on anything that violates the contract; attributes
// they do not know are ignored.
Target parse_target(nlattr** tb);
ModuleInfo parse_info(nlattr** tb);

// Whole-message parsers: nlh is a generic netlink message of family "aoe".
// parse_target_message() reads one message as a whole target; for a dump use
// TargetDump, which also takes continuation messages.
Target parse_target_message(nlmsghdr* nlh);
ModuleInfo parse_info_message(nlmsghdr* nlh);
Event parse_event_message(nlmsghdr* nlh);

// Reassembles the messages of a GET_TARGET dump (uapi header, "Split
// targets"): a target that does not fit one message comes as its first
// message (AOE_A_PATH_FIRST 0 or absent) followed by continuations
// (AOE_A_PATH_FIRST = number of its paths sent before) that carry only its
// address and more AOE_A_PATHS.
class TargetDump {
public:
    // One dump message. Malformed attributes throw ParseError at once; a
    // continuation that does not follow its target is remembered and
    // reported by finish(), since an interrupted dump (NLM_F_DUMP_INTR),
    // which is retried anyway, can legitimately produce one.
    void add(nlmsghdr* nlh);
    // The targets in dump order. Throws ParseError when a continuation was
    // out of sequence or a target has fewer paths than its AOE_A_PATH_COUNT
    // (the dump ended early).
    std::vector<Target> finish() &&;
    // Messages added so far.
    size_t messages() const { return messages_; }

private:
    size_t messages_ = 0;
    std::vector<Target> targets_;
    std::string broken_;  // the first sequence error, if any
};

}  // namespace aoe
