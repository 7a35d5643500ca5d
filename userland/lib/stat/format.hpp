// Text and JSON output of the model: aoetools-compatible aoe-stat rows,
// per-path detail lines, module summary, and the JSON objects the tools'
// --json output is made of (schema in man/aoe-stat.8).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/model.hpp"

namespace aoe {

// "00:11:22:33:44:55"
std::string format_mac(const Mac& mac);
// "0x4019"
std::string format_fwver(uint16_t fwver);
// Size as aoetools' aoe-stat prints it: decimal gigabytes with three
// decimals, truncated ("0.268GB", "4398.046GB"); "(NA)" when unknown.
std::string format_size_aoetools(const std::optional<uint64_t>& sectors);
// Non-printable bytes as \xNN, backslash and quote escaped.
std::string printable(const std::string& bytes);

// Local interfaces of a target's paths, comma separated, in path order
// without duplicates; "none" when it has no path (as the in-tree sysfs netif).
// A path's local interface name: its name, else "if<index>", else "?"; an
// interface in another network namespace gets "@ns<id>" (its netnsid as
// ip -d link shows it; "@ns?" when the namespace has no id).
std::string path_ifname(const Path& p);
std::string target_netifs(const Target& t);
std::string target_state_text(const Target& t);

// One row of aoe-stat's table, laid out as aoetools' aoe-stat does
// ("%10s %15s %10s %-5s %-14s": device, size, netif, payload, state).
std::string stat_row(const Target& t);

struct StatRow {
    std::string text;
    const Target* target;
};
// Rows for every target, in the order `sort` (C locale) gives aoetools.
std::vector<StatRow> stat_rows(const std::vector<Target>& targets);
// A matcher for a grep basic regular expression (POSIX BRE, regcomp
// without REG_EXTENDED), matching anywhere in a row, as aoetools'
// `aoe-stat | grep REGEX`. Throws RegexError (a UsageError) for a bad pattern.
std::function<bool(const std::string&)> grep_matcher(const std::string& pattern);
// Keeps the rows match accepts.
std::vector<StatRow> filter_rows(std::vector<StatRow> rows,
                                 const std::function<bool(const std::string&)>& match);

// aoe-stat -x: the columns appended to a row: paths up/total, RTT
// avg+-dev in ms (mean over the paths that are up), window (sum over up
// paths)/outstanding, retransmits, bytes read/written; "-" for unknowns.
std::string stat_extended_columns(const Target& t);
// The header line aoe-stat -x prints above its rows.
std::string stat_extended_header();

// aoe-stat -a: one indented line per path under the target's row.
std::vector<std::string> path_lines(const Target& t);
// aoe-stat -a: the target's write cache line (flush mode, the module's
// aoe_flush when the target follows it, what the disk declares, what
// IDENTIFY says) and its flush counters.
std::string cache_line(const Target& t, const std::optional<uint32_t>& module_flush);

// aoe-stat -a: the target's stale-write fence counters, one indented line
// (none from a kernel without them).
std::optional<std::string> fence_line(const Target& t);
// "   reserve conflicts N (another initiator holds a reservation: aoe-reserve eS.L)",
// or nullopt while the counter is 0 or absent.
std::optional<std::string> reserve_line(const Target& t);
// aoe-stat -a: the target's identity (serial, model, capacity, LBA48) and
// address conflicts: one "identity" line, then one "conflict" line per
// path refused as another device and still remembered.
std::vector<std::string> identity_lines(const Target& t);
// aoe-stat --monitor: one line for an event ("e1.2 path_up a1 -> MAC"; for
// an address conflict the refused path and the serial it answered).
std::string event_line(const Event& e);
// "    policy deadsecs 10 (target) fast-fail off (module) ...": the failure
// policy in force; nullopt from a module without per-target policy.
std::optional<std::string> policy_line(const Target& t);
// JSON of the same, null without it.
Json policy_json(const Target& t);
// Module version, parameters, interfaces and drops, a few lines.
std::string format_info_text(const ModuleInfo& m);
// aoe-discover: one line per target that answered.
std::string discover_line(const Target& t, bool is_new);

Json to_json(const Counters& c);
Json to_json(const Path& p);
Json to_json(const Target& t);
// {"name", "ifindex", "mtu", "up"}: every tool's JSON for an interface the
// module uses (aoe-stat --json, aoe-interfaces --json, aoe-top -b --json).
Json to_json(const Interface& i);
Json to_json(const ModuleInfo& m);
Json drops_json(const Drops& d);

}  // namespace aoe
