// aoe-discover --probe: find AoE targets and measure each path over raw
// AF_PACKET sockets, without the aoe module.
//
// This header is the pure part: what was found and measured (plain data),
// how a received frame is matched to the request it answers, what to fix
// (advice with the command to run), the exit status, the text table and the
// JSON document (schema in man/aoe-discover.8). The network part (interfaces
// from rtnetlink, the packet sockets, the probing itself) is probe_net.hpp.
//
// Every frame the probe sends carries a tag with bit 31 set (AOE_TAG_USER),
// so that an aoe module loaded at the same time drops the answers (it counts
// them as drops "user_tag") instead of taking them for its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aoe_codec.h"
#include "stat/format.hpp"
#include "core/model.hpp"

namespace aoe::probe {

// A local interface the probe may use.
struct Interface {
    std::string name;
    int ifindex = 0;
    Mac mac{};
    uint32_t mtu = 0;
    bool up = false;
    bool carrier = true;    // IFF_LOWER_UP: a link (cable, peer) is there
    bool ethernet = false;  // ARPHRD_ETHER
    bool enslaved = false;  // has a master (bridge port, bond slave)
};

// The interfaces to probe: the named ones (each must exist, be up, have a
// carrier and be Ethernet, else ProbeError saying so), or, when names is
// empty, every up Ethernet interface with a carrier that is not enslaved to
// a bridge or bond (ProbeError naming those up without carrier when none is
// left). Sorted by name when chosen automatically, in the given order
// otherwise.
std::vector<Interface> select_interfaces(const std::vector<Interface>& all,
                                         const std::vector<std::string>& names);

// A Query Config answer: one target seen on one path.
struct ConfigAnswer {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    Mac mac{};            // the target's MAC
    std::string ifname;   // local interface it arrived on
    uint16_t bufcnt = 0;
    uint16_t fwver = 0;
    uint8_t maxsect = 0;  // raw: 0 means 2
    uint8_t aoever = 0;
    std::string config;
};

// The Query Config sector count as the protocol means it (0 means 2).
inline unsigned effective_scnt(uint8_t maxsect)
{
    return maxsect ? maxsect : 2;
}

// How the payload measurement of one path ended.
enum class Outcome {
    ok,         // every size up to the expected one came back
    dropped,    // a size came back, a larger one never did: frames vanish
    no_reply,   // not even one sector came back
    ata_error,  // the target answered a read with an error
    timed_out,  // -w ran out before the path was measured
    no_room,    // the local MTU cannot carry even one sector
};
const char* outcome_name(Outcome o);

// One path (local interface x target MAC), as measured.
struct PathResult {
    std::string ifname;
    uint32_t mtu = 0;  // local interface MTU
    Mac mac{};         // target MAC
    uint16_t bufcnt = 0;
    uint16_t fwver = 0;
    uint8_t maxsect = 0;  // raw Query Config sector count
    // What the local MTU and the target's sector count promise, bytes:
    // aoe_payload_for_mtu(mtu, maxsect).
    uint32_t payload_expected = 0;
    // The largest read payload that really came back, bytes (0: none).
    uint32_t payload = 0;
    Outcome outcome = Outcome::timed_out;
    uint8_t ata_status = 0;  // for ata_error
    uint8_t ata_err = 0;
    uint32_t probes_sent = 0;
    std::optional<uint32_t> rtt_us;  // of the smallest read that came back
};

// One target (shelf.slot) and its paths.
struct TargetResult {
    uint16_t shelf = 0;
    uint8_t slot = 0;
    std::string config;  // from the first answer
    std::vector<PathResult> paths;
    // From an ATA IDENTIFY, when one was answered.
    std::optional<uint64_t> sectors;
    std::optional<std::string> model;

    std::string device() const { return device_name(shelf, slot); }
};

// Groups Query Config answers into targets (sorted by shelf, slot) and
// paths (sorted by interface, then MAC), dropping duplicates of one path.
// Paths start unmeasured (timed_out, payload 0) with payload_expected set
// from mtu_of(ifname).
std::vector<TargetResult> group_answers(const std::vector<ConfigAnswer>& answers,
                                        const std::vector<Interface>& ifaces);

// What a received frame is, as far as one outstanding request goes.
struct Request {
    uint32_t tag = 0;
    uint8_t cmd = AOE_CMD_CFG;
    // For a unicast request: the target it went to. A broadcast Query
    // Config accepts answers from any shelf.slot and MAC.
    bool broadcast = false;
    uint16_t shelf = 0;
    uint8_t slot = 0;
    Mac mac{};
    uint8_t sectors = 0;  // ATA read: sectors asked for
};

enum class Match {
    answer,     // the answer to this request, usable
    ata_error,  // the answer, but the target reports an error (E flag or ATA status)
    short_data, // the answer to a read, with less data than asked for
    other,      // not ours: another tag, a kernel tag, another target, a request...
};

// Matches a received frame (buf, len: from the Ethernet header) against
// req. Only responses whose tag has bit 31 set and equals req.tag, for the
// same AoE command, from the addressed shelf.slot and MAC, are answers.
// Fills f when the frame decodes.
Match match_response(const uint8_t* buf, size_t len, const Request& req, aoe_frame& f);

// Tags of one run: bit 31 set, a random 15-bit run number in bits 16-30
// (so that two probes at once ignore each other's answers), a sequence
// number in bits 0-15.
class TagSource {
public:
    explicit TagSource(uint32_t seed);
    uint32_t next();

private:
    uint32_t base_;
    uint16_t seq_ = 0;
};

enum class Severity { warning, error };
const char* severity_name(Severity s);

// One thing to fix.
struct Advice {
    Severity severity = Severity::warning;
    std::string kind;       // machine-readable: mtu_low, mtu_differs, ...
    std::string target;     // "e1.2"
    std::string interface;  // local interface concerned, or empty
    std::string message;    // what is wrong and where to look
    std::string command;    // the command that fixes it here, or empty
};

// Advice for the measured targets (pure), in target order:
//   mtu_low         the local MTU is lower than the target's sector count
//                   could use: ip link set IFACE mtu 1500 when 36+512*scnt
//                   fits it, else 9000 (the jumbo MTU interfaces and
//                   switches offer: 9000 for 8704-byte payloads, not 8740)
//   target_mtu_lower the target takes fewer sectors per frame than the
//                   local MTU could carry (its interface MTU is lower):
//                   raise the target's MTU; no local command (lowering the
//                   local MTU gains AoE nothing and can break other traffic)
//   mtu_differs     the local interfaces reaching one target have different MTUs
//   jumbo_dropped   larger frames vanish on a path that promises them
//   no_reply        not even a one-sector read came back (error)
//   ata_error       the target answers reads with an error (error)
//   not_measured    -w ran out before the path was measured
//   no_room         the local MTU cannot carry one sector (error)
//   path_count      the number of local interfaces and of target MACs differ
std::vector<Advice> advise(const std::vector<TargetResult>& targets);

// The exit code (core/cli.hpp): kOk clean, kProblems (3) when there is advice
// (warnings or errors), kFailure (1) when no target answered at all.
int exit_status(const std::vector<TargetResult>& targets, const std::vector<Advice>& advice);

// The human-readable report: one line per path, one per target with its
// size and model (as in the JSON), then the advice ("warning: ..." /
// "error: ..." and "  fix: COMMAND").
std::string format_report(const std::vector<TargetResult>& targets,
                          const std::vector<Advice>& advice);

// The --json document (schema in man/aoe-discover.8).
Json to_json(const std::vector<Interface>& probed, const std::vector<TargetResult>& targets,
             const std::vector<Advice>& advice, uint64_t waited_ms);

}  // namespace aoe::probe
