// The AoE control commands (r11): Query Config sub-commands, MAC Mask List
// and Reserve/Release, for aoe-cfg, aoe-mask, aoe-reserve and aoe-ping.
//
// This header is the pure part: what a request and its answers are (plain
// data), the AOE_CMD_CTL netlink request and its results
// (kmod/uapi/aoe_netlink.h), argument parsing, the edits that turn one mask
// list into another, and the words, text and JSON the tools print. The
// network part (through the module, or over raw AF_PACKET sockets when it
// is not loaded) is ctl_net.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aoe_codec.h"
#include "aoe_netlink.h"
#include "core/model.hpp"
#include "core/netlink.hpp"
#include "stat/format.hpp"

struct nlmsghdr;

namespace aoe::ctl {

// One request to one target (shelf.slot): AoE command cmd (AOE_CMD_CFG,
// AOE_CMD_MASK, AOE_CMD_RESERVE) with sub-command sub (ccmd, mcmd, rcmd)
// and its data (config string, 8-byte directives, 6-byte MACs).
struct Request {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    uint8_t cmd = AOE_CMD_CFG;
    uint8_t sub = 0;
    std::vector<uint8_t> data;
    std::chrono::milliseconds timeout{AOE_CTL_TIMEOUT_MS_DEFAULT};

    // Reads go out on every path; changes once per target port.
    bool change() const { return sub != 0; }
};

enum class Status {
    answered,   // answered without the E flag
    error,      // answered with the E flag (aoe_error says which)
    timeout,    // no answer by the deadline (a failed config test, too)
    too_big,    // the request exceeds this path's MTU
    no_device,  // the local interface is gone or down
};
const char* status_name(Status s);
// AOE_CTL_STATUS_* -> Status (unknown numbers: timeout).
Status status_from_uapi(uint32_t s);

// One path's answer (local interface x target port).
struct PathAnswer {
    std::string ifname;
    uint32_t ifindex = 0;
    Mac src{};  // the local interface's MAC
    Mac dst{};  // the target port's MAC
    Status status = Status::timeout;
    uint8_t aoe_error = 0;
    uint32_t tries = 0;
    std::optional<uint32_t> rtt_us;
    // Query Config
    uint16_t bufcnt = 0;
    uint16_t fwver = 0;
    uint8_t maxsect = 0;
    uint8_t aoever = 0;
    std::optional<std::string> config;
    // MAC Mask List, Reserve/Release
    uint8_t merror = 0;
    uint32_t count = 0;
    std::vector<Mac> macs;

    bool operator==(const PathAnswer&) const = default;
};

struct Result {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    uint8_t cmd = 0;
    uint8_t sub = 0;
    std::string via;  // "module" or "raw"
    std::vector<PathAnswer> paths;
};

// "00:11:22:33:44:55", "00-11-22-33-44-55" or "001122334455"; a unicast,
// non-zero MAC. Throws UsageError.
Mac parse_mac(const std::string& text);
// A config string as the request's data (at most 1024 bytes, else UsageError).
std::vector<uint8_t> config_data(const std::string& s);
std::vector<uint8_t> mac_data(const std::vector<Mac>& macs);

// Mask directives: (AOE_DCMD_ADD / AOE_DCMD_DEL, MAC), as 8-byte records.
using Edit = std::pair<uint8_t, Mac>;
std::vector<uint8_t> mask_directives(const std::vector<Edit>& edits);
// The edits that turn the list current into wanted: deletions of what is
// not wanted, then additions of what is missing, in the given orders.
std::vector<Edit> mask_set_edits(const std::vector<Mac>& current, const std::vector<Mac>& wanted);
// At most 255 directives, and the frame within the smallest path MTU 1500
// leaves room for (AoE r11: 8-byte records after a 28-byte header):
// throws UsageError otherwise.
void check_edits(const std::vector<Edit>& edits);

// The AOE_CMD_CTL request (exposed for the unit tests).
nl::MsgPtr build_ctl(int family, const Request& req, uint32_t cookie);

// An AOE_CMD_CTL reply or AOE_CMD_CTL_RESULT message.
struct CtlMessage {
    uint8_t cmd = 0;  // AOE_CMD_CTL or AOE_CMD_CTL_RESULT
    uint32_t cookie = 0;
    uint32_t count = 0;           // AOE_A_PATH_COUNT
    std::optional<uint32_t> index;  // results: AOE_CTL_A_INDEX
    PathAnswer answer;            // results only
};
// Parses one (throws ParseError when it is malformed: a MAC that is not 6
// bytes, a list that is not a whole number of MACs, a config over 1024).
CtlMessage parse_ctl_message(const nlmsghdr* nlh);

// Words for what a path's answer means for request req, e.g.
// "config string present (set refused; --force-set replaces it)",
// "no answer (a test whose string does not match gets none)",
// "mask list full at directive 3".
std::string describe(const Request& req, const PathAnswer& a);
// Did this path do what was asked: answered, and for a mask edit without
// a mask error.
bool path_ok(const Request& req, const PathAnswer& a);

// "e1.2 a0 -> 00:11:..: ..." lines, one per path, with the payload:
// config string, mask list, reserve list.
std::string format_text(const Request& req, const Result& r);
// {"device":..,"via":..,"command":..,"paths":[{...}]}
Json to_json(const Request& req, const Result& r);
Json path_json(const Request& req, const PathAnswer& a);
std::string command_name(uint8_t cmd, uint8_t sub);

// MACs as "a, b" ("none" when empty).
std::string mac_list(const std::vector<Mac>& macs);

// aoe-reserve: after a change, did each target port end with the wanted
// reserve list? readback: a read after the change. The ports that did,
// and those that did not (or did not answer).
struct PortOutcome {
    Mac port{};
    std::string ifname;
    bool took = false;
    std::string why;  // when it did not
};
std::vector<PortOutcome> reserve_outcomes(const Result& readback, const std::vector<Mac>& wanted);
// The exit code (core/cli.hpp): kOk every port took it, kProblems (3) only
// some did, kFailure (1) none did.
int change_exit_status(const std::vector<bool>& took);

// aoe-ping: round-trip times over several probes of one path.
struct RttStats {
    uint32_t sent = 0;
    uint32_t received = 0;
    std::optional<uint32_t> min_us, max_us;
    std::optional<double> avg_us;
};
RttStats rtt_stats(const std::vector<std::optional<uint32_t>>& samples);

// aoe-ping: Query Config probes per path, and the target's identity.
struct PingPath {
    std::string ifname;
    Mac src{};
    Mac dst{};
    std::vector<std::optional<uint32_t>> samples;  // one per probe: its RTT, or lost
    uint16_t bufcnt = 0;
    uint16_t fwver = 0;
    uint8_t maxsect = 0;
    std::optional<std::string> config;
};
struct PingIdentity {
    std::string model, serial, firmware;
    uint64_t sectors = 0;
    bool lba48 = false;
    std::optional<bool> write_cache;  // IDENTIFY word 85 (when known)
    std::optional<bool> flush_ext;
};
struct PingReport {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    std::string via;
    uint32_t probes = 0;
    std::vector<PingPath> paths;
    std::optional<PingIdentity> id;
};
// One round of probes (a Query Config read on every path): each path of the
// report gets a sample, answered or lost; new paths are added with the
// earlier rounds counted as lost.
void ping_add(PingReport& rep, const Result& round);
PingIdentity identity_from(const aoe_identity& id);
// From the module's target (GET_TARGET): its IDENTIFY fields and cache bits.
std::optional<PingIdentity> identity_from(const Target& t);
std::string ping_text(const PingReport& rep);
Json ping_json(const PingReport& rep);
// The exit code (core/cli.hpp): kOk every path answered every probe,
// kProblems (3) some probes were lost (or some paths never answered),
// kFailure (1) nothing answered.
int ping_exit_status(const PingReport& rep);

}  // namespace aoe::ctl
