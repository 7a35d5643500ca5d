#include "stat/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "core/regex.hpp"

namespace aoe {

using json = Json;

std::string format_mac(const Mac& mac)
{
    return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", mac[0], mac[1], mac[2], mac[3],
                       mac[4], mac[5]);
}

std::string format_fwver(uint16_t fwver)
{
    return fmt::format("{:#x}", fwver);
}

std::string format_size_aoetools(const std::optional<uint64_t>& sectors)
{
    if (!sectors)
        return "(NA)";
    // aoetools: psize=$(((512000 * sectors) / (1000 * 1000 * 1000))), i.e.
    // megabytes, then printf %04d and a dot before the last three digits:
    // the same as <MB / 1000>.<MB % 1000, three digits>.
    auto mb = static_cast<uint64_t>(static_cast<unsigned __int128>(*sectors) * 512u / 1000000u);
    return fmt::format("{}.{:03}GB", mb / 1000, mb % 1000);
}

std::string printable(const std::string& bytes)
{
    std::string out;
    out.reserve(bytes.size());
    for (unsigned char c : bytes) {
        if (c == '\\' || c == '"')
            out += fmt::format("\\{}", static_cast<char>(c));
        else if (c < 0x20 || c >= 0x7f)
            out += fmt::format("\\x{:02x}", c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

std::string path_ifname(const Path& p)
{
    std::string name = p.ifname ? *p.ifname
                                : p.ifindex ? fmt::format("if{}", *p.ifindex) : std::string("?");
    if (p.netnsid)
        name += *p.netnsid >= 0 ? fmt::format("@ns{}", *p.netnsid) : std::string("@ns?");
    return name;
}

std::string target_netifs(const Target& t)
{
    std::vector<std::string> names;
    for (const auto& p : t.paths) {
        std::string n = path_ifname(p);
        if (std::find(names.begin(), names.end(), n) == names.end())
            names.push_back(std::move(n));
    }
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ","));
}

std::string target_state_text(const Target& t)
{
    return t.state ? target_state_name(*t.state) : std::string("(NA)");
}

std::string stat_row(const Target& t)
{
    std::string payload = t.payload ? std::to_string(*t.payload) : std::string("(NA)");
    return fmt::format("{:>10} {:>15} {:>10} {:<5} {:<14}", t.device,
                       format_size_aoetools(t.sectors), target_netifs(t), payload,
                       target_state_text(t));
}

std::vector<StatRow> stat_rows(const std::vector<Target>& targets)
{
    std::vector<StatRow> rows;
    rows.reserve(targets.size());
    for (const auto& t : targets)
        rows.push_back({stat_row(t), &t});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const StatRow& a, const StatRow& b) { return a.text < b.text; });
    return rows;
}

std::function<bool(const std::string&)> grep_matcher(const std::string& pattern)
{
    // grep's basic syntax (POSIX BRE): 'e1\\|e9', 'e1\\.[0-9]'; throws RegexError.
    auto re = std::make_shared<const Regex>(pattern, Regex::Syntax::kBasic);
    return [re](const std::string& s) { return re->search(s); };
}

std::vector<StatRow> filter_rows(std::vector<StatRow> rows,
                                 const std::function<bool(const std::string&)>& match)
{
    std::erase_if(rows, [&](const StatRow& r) { return !match(r.text); });
    return rows;
}

namespace {
constexpr const char* kExtFmt = "{:>5} {:>15} {:>9} {:>8} {:>12} {:>12}";
}

std::string stat_extended_header()
{
    return fmt::format("{:>10} {:>15} {:>10} {:<5} {:<14} ", "DEVICE", "SIZE", "NETIF", "PAYLD",
                       "STATE") +
           fmt::format(kExtFmt, "PATHS", "RTT(ms)", "WIN/OUT", "RETRANS", "READ", "WRITTEN");
}

std::string stat_extended_columns(const Target& t)
{
    size_t up = 0, with_rtt = 0;
    uint64_t rtt_sum = 0, dev_sum = 0, win_sum = 0;
    bool have_win = false;
    for (const auto& p : t.paths) {
        if (!p.state || *p.state != AOE_PATH_STATE_UP)
            continue;
        ++up;
        if (p.rtt_avg_us) {
            ++with_rtt;
            rtt_sum += *p.rtt_avg_us;
            dev_sum += p.rtt_dev_us.value_or(0);
        }
        if (p.window) {
            have_win = true;
            win_sum += *p.window;
        }
    }
    std::string rtt = with_rtt ? fmt::format("{:.3f}\u00b1{:.3f}",
                                             rtt_sum / 1000.0 / static_cast<double>(with_rtt),
                                             dev_sum / 1000.0 / static_cast<double>(with_rtt))
                               : std::string("-");
    std::string win = fmt::format("{}/{}", have_win ? std::to_string(win_sum) : "-",
                                  text_or_dash(t.outstanding));
    return fmt::format(kExtFmt, fmt::format("{}/{}", up, t.paths.size()), rtt, win,
                       text_or_dash(t.counters.retransmits), text_or_dash(t.counters.bytes_read),
                       text_or_dash(t.counters.bytes_written));
}

std::vector<std::string> path_lines(const Target& t)
{
    std::vector<std::string> lines;
    for (const auto& p : t.paths) {
        std::string ifname = path_ifname(p);
        std::string rtt = p.rtt_avg_us ? fmt::format("{}/{}us", *p.rtt_avg_us,
                                                      text_or_dash(p.rtt_dev_us))
                                       : std::string("-");
        lines.push_back(fmt::format(
            "{:>10} {} {:<4} payload {} bufcnt {} fw {} maxsect {} mtu {} rtt {} rto {} "
            "window {} out {} sent {} rcvd {} retrans {} timeouts {} lost {}",
            ifname, format_mac(p.mac), p.state ? path_state_name(*p.state) : std::string("-"),
            text_or_dash(p.payload), p.bufcnt ? std::to_string(*p.bufcnt) : "-",
            p.fwver ? format_fwver(*p.fwver) : "-", p.maxsect ? std::to_string(*p.maxsect) : "-",
            text_or_dash(p.mtu), rtt, p.rto_us ? fmt::format("{}us", *p.rto_us) : "-",
            text_or_dash(p.window), text_or_dash(p.outstanding), text_or_dash(p.counters.frames_sent),
            text_or_dash(p.counters.frames_received), text_or_dash(p.counters.retransmits),
            text_or_dash(p.counters.timeouts), text_or_dash(p.counters.lost)));
    }
    return lines;
}

std::string cache_line(const Target& t, const std::optional<uint32_t>& module_flush)
{
    std::string mode = "-";
    if (t.flush_mode && *t.flush_mode != AOE_FLUSH_MODE_DEFAULT)
        mode = flush_mode_name(*t.flush_mode);
    else if (t.flush_mode)
        mode = fmt::format("{} (module)", module_flush ? flush_mode_name(*module_flush) : "-");
    std::string disk = "-", ident = "-";
    if (t.cache) {
        uint32_t c = *t.cache;
        disk = (c & AOE_CACHE_WRITE_BACK) ? "write back" : "write through";
        if (c & AOE_CACHE_QUEUE_FUA)
            disk += " fua";
        std::vector<std::string> has;
        has.push_back((c & AOE_CACHE_ENABLED) ? "write cache on" : "no write cache");
        if (c & AOE_CACHE_FLUSH)
            has.push_back("FLUSH CACHE");
        if (c & AOE_CACHE_FLUSH_EXT)
            has.push_back("FLUSH CACHE EXT");
        if (c & AOE_CACHE_FUA)
            has.push_back("FUA");
        if (c & AOE_CACHE_FLUSH_REFUSED)
            has.push_back("FLUSH aborted");
        ident = fmt::format("{}", fmt::join(has, ", "));
    }
    const Counters& n = t.counters;
    return fmt::format("{:>10} flush {} {}; identify: {}; flushes sent {} answered {} failed {} "
                       "fua_writes {}",
                       "cache", mode, disk, ident, text_or_dash(n.flushes_sent),
                       text_or_dash(n.flushes_answered), text_or_dash(n.flushes_failed),
                       text_or_dash(n.fua_writes));
}

std::optional<std::string> fence_line(const Target& t)
{
    const Counters& c = t.counters;
    if (!c.fence_ghosts && !c.fence_held && !c.fence_held_us)
        return std::nullopt;
    return fmt::format("{:>10} ghosts {} held {} for {} ms", "fence", text_or_dash(c.fence_ghosts),
                       text_or_dash(c.fence_held),
                       c.fence_held_us ? std::to_string(*c.fence_held_us / 1000) : "-");
}

std::optional<std::string> reserve_line(const Target& t)
{
    const auto& n = t.counters.reserve_conflicts;
    if (!n || !*n)
        return std::nullopt;
    return fmt::format("{:>10} conflicts {} (another initiator holds a reservation: aoe-reserve {})",
                       "reserve", *n, t.device);
}

std::vector<std::string> identity_lines(const Target& t)
{
    std::vector<std::string> out;
    out.push_back(fmt::format(
        "{:>10} serial \"{}\" model \"{}\" {} sectors{}; address_conflicts {}", "identity",
        printable(t.serial.value_or("-")), printable(t.model.value_or("-")), text_or_dash(t.sectors),
        t.sectors ? (t.lba48 ? " lba48" : " 28-bit") : "", text_or_dash(t.counters.address_conflicts)));
    for (const auto& c : t.conflicts)
        out.push_back(fmt::format(
            "{:>10} {} -> {} answers as serial \"{}\" ({} differs), refused {} s ago, "
            "remembered {} s more",
            "conflict", c.ifname.value_or(c.ifindex ? fmt::format("if{}", *c.ifindex) : "?"),
            format_mac(c.mac), printable(c.serial.value_or("-")),
            c.reason ? conflict_reason_name(*c.reason) : "-",
            c.age_ms ? std::to_string(*c.age_ms / 1000) : "-",
            c.expires_ms ? std::to_string(*c.expires_ms / 1000) : "-"));
    return out;
}

std::string event_line(const Event& e)
{
    std::string line = fmt::format("{} {}", e.target.device, event_name(e.cmd));
    if ((e.cmd == AOE_CMD_PATH_UP || e.cmd == AOE_CMD_PATH_DOWN) && e.target.paths.size() == 1)
        line += fmt::format(" {} -> {}", e.target.paths[0].ifname.value_or("?"),
                            format_mac(e.target.paths[0].mac));
    if (e.cmd == AOE_CMD_ADDRESS_CONFLICT && !e.target.conflicts.empty()) {
        const Conflict& c = e.target.conflicts.front();
        line += fmt::format(" {} -> {} answers as serial \"{}\", not \"{}\"",
                            c.ifname.value_or("?"), format_mac(c.mac),
                            printable(c.serial.value_or("-")),
                            printable(e.target.serial.value_or("-")));
    }
    return line;
}

std::optional<std::string> policy_line(const Target& t)
{
    if (!t.deadsecs || !t.fast_fail)
        return std::nullopt;
    uint32_t bits = t.policy.value_or(0);
    auto src = [&](uint32_t own) { return (bits & own) ? "target" : "module"; };
    std::string line = fmt::format(
        "{:>10} deadsecs {} ({}) fast-fail {} ({}) fast_fails {}", "policy", *t.deadsecs,
        src(AOE_POLICY_DEADSECS_OWN),
        *t.fast_fail ? fmt::format("{}", *t.fast_fail) : std::string("off"),
        src(AOE_POLICY_FAST_FAIL_OWN), text_or_dash(t.fast_fails));
    if (bits & AOE_POLICY_FAILING)
        line += "; failing: no usable path, new I/O fails at once";
    return line;
}

Json policy_json(const Target& t)
{
    if (!t.deadsecs || !t.fast_fail)
        return nullptr;
    uint32_t bits = t.policy.value_or(0);
    auto src = [&](uint32_t own) { return (bits & own) ? "target" : "module"; };
    return {{"deadsecs", *t.deadsecs},
            {"deadsecs_source", src(AOE_POLICY_DEADSECS_OWN)},
            {"fast_fail", *t.fast_fail},
            {"fast_fail_source", src(AOE_POLICY_FAST_FAIL_OWN)},
            {"failing", bool(bits & AOE_POLICY_FAILING)},
            {"fast_fails", json_or_null(t.fast_fails)}};
}

std::string format_info_text(const ModuleInfo& m)
{
    std::string out = fmt::format("aoe module {}: {} targets, generation {}\n",
                                  m.version.value_or("(unknown version)"), text_or_dash(m.ntargets),
                                  text_or_dash(m.generation));
    out += fmt::format(
        "parameters: aoe_iflist=\"{}\" aoe_deadsecs={} aoe_maxout={} aoe_dyndevs={} "
        "aoe_maxsectors={} aoe_flush={}{}\n",
        m.iflist ? printable(*m.iflist) : "-", text_or_dash(m.deadsecs), text_or_dash(m.maxout), text_or_dash(m.dyndevs),
        text_or_dash(m.maxsectors), m.flush_mode ? flush_mode_name(*m.flush_mode) : "-",
        m.fast_fail ? fmt::format(" aoe_fast_fail={}", *m.fast_fail) : std::string());
    std::vector<std::string> ifs;
    for (const auto& i : m.interfaces)
        ifs.push_back(fmt::format("{} ({}, mtu {})", i.name, i.up ? "up" : "down", text_or_dash(i.mtu)));
    out += fmt::format("interfaces: {}\n", ifs.empty() ? "none" : fmt::format("{}", fmt::join(ifs, ", ")));
    std::vector<std::string> drops;
    if (m.drops)
        for (const auto& [reason, n] : *m.drops)
            drops.push_back(fmt::format("{} {}", drop_reason_name(reason), n));
    out += fmt::format("drops: {}\n", !m.drops ? "-"
                                      : drops.empty() ? "none"
                                                      : fmt::format("{}", fmt::join(drops, ", ")));
    return out;
}

std::string discover_line(const Target& t, bool is_new)
{
    std::vector<std::string> paths;
    for (const auto& p : t.paths)
        paths.push_back(fmt::format("{} -> {}", path_ifname(p), format_mac(p.mac)));
    const Path* first = t.paths.empty() ? nullptr : &t.paths.front();
    std::string line = fmt::format(
        "{:<10} {:<3}  {}  bufcnt {}  fw {}  payload {}  {}", t.device, is_new ? "new" : "",
        paths.empty() ? std::string("(no path)") : fmt::format("{}", fmt::join(paths, ", ")),
        first && first->bufcnt ? std::to_string(*first->bufcnt) : "-",
        first && first->fwver ? format_fwver(*first->fwver) : "-", text_or_dash(t.payload),
        t.state ? target_state_name(*t.state) : "-");
    if (t.config && !t.config->empty())
        line += fmt::format("  \"{}\"", printable(*t.config));
    return line;
}

json drops_json(const Drops& d)
{
    json j = json::object();
    for (const auto& [reason, n] : d)
        j[drop_reason_name(reason)] = n;
    return j;
}

json to_json(const Counters& c)
{
    json j = json::object();
    for (const auto& f : kCounterFields)
        if (const auto& v = c.*f.member)
            j[f.name] = *v;
    if (c.drops)
        j["drops"] = drops_json(*c.drops);
    return j;
}

json to_json(const Path& p)
{
    json j = json::object();
    j["interface"] = json_or_null(p.ifname);
    j["ifindex"] = json_or_null(p.ifindex);
    if (p.netnsid)
        j["netnsid"] = *p.netnsid;
    j["mac"] = format_mac(p.mac);
    j["state"] = p.state ? json(path_state_name(*p.state)) : json(nullptr);
    j["bufcnt"] = json_or_null(p.bufcnt);
    j["fwver"] = json_or_null(p.fwver);
    j["fwver_hex"] = p.fwver ? json(format_fwver(*p.fwver)) : json(nullptr);
    j["maxsect"] = json_or_null(p.maxsect);
    j["mtu"] = json_or_null(p.mtu);
    j["payload"] = json_or_null(p.payload);
    j["rtt_avg_us"] = json_or_null(p.rtt_avg_us);
    j["rtt_dev_us"] = json_or_null(p.rtt_dev_us);
    j["rtt_min_us"] = json_or_null(p.rtt_min_us);
    j["rto_us"] = json_or_null(p.rto_us);
    j["window"] = json_or_null(p.window);
    j["outstanding"] = json_or_null(p.outstanding);
    j["last_rx_ms"] = json_or_null(p.last_rx_ms);
    j["counters"] = to_json(p.counters);
    return j;
}

json to_json(const Target& t)
{
    json j = json::object();
    j["device"] = t.device;
    j["shelf"] = t.shelf;
    j["slot"] = t.slot;
    j["state"] = t.state ? json(target_state_name(*t.state)) : json(nullptr);
    j["sectors"] = json_or_null(t.sectors);
    j["size_bytes"] = t.sectors ? json(*t.sectors * 512u) : json(nullptr);
    j["payload"] = json_or_null(t.payload);
    j["model"] = json_or_null(t.model);
    j["serial"] = json_or_null(t.serial);
    j["firmware"] = json_or_null(t.firmware);
    j["lba48"] = t.lba48;
    j["config"] = json_or_null(t.config);
    j["last_rx_ms"] = json_or_null(t.last_rx_ms);
    j["outstanding"] = json_or_null(t.outstanding);
    j["flush_mode"] = t.flush_mode ? json(flush_mode_name(*t.flush_mode)) : json(nullptr);
    if (t.cache) {
        uint32_t c = *t.cache;
        j["write_cache"] = bool(c & AOE_CACHE_WRITE_BACK);
        j["fua"] = bool(c & AOE_CACHE_QUEUE_FUA);
        j["cache"] = {{"enabled", bool(c & AOE_CACHE_ENABLED)},
                      {"flush", bool(c & AOE_CACHE_FLUSH)},
                      {"flush_ext", bool(c & AOE_CACHE_FLUSH_EXT)},
                      {"fua", bool(c & AOE_CACHE_FUA)},
                      {"flush_refused", bool(c & AOE_CACHE_FLUSH_REFUSED)}};
    } else {
        j["write_cache"] = nullptr;
        j["fua"] = nullptr;
        j["cache"] = nullptr;
    }
    j["policy"] = policy_json(t);
    j["counters"] = to_json(t.counters);
    json paths = json::array();
    for (const auto& p : t.paths)
        paths.push_back(to_json(p));
    j["paths"] = std::move(paths);
    json conflicts = json::array();
    for (const auto& c : t.conflicts)
        conflicts.push_back({{"interface", json_or_null(c.ifname)},
                             {"ifindex", json_or_null(c.ifindex)},
                             {"mac", format_mac(c.mac)},
                             {"serial", json_or_null(c.serial)},
                             {"reason", c.reason ? json(conflict_reason_name(*c.reason)) : json(nullptr)},
                             {"age_ms", json_or_null(c.age_ms)},
                             {"expires_ms", json_or_null(c.expires_ms)}});
    j["conflicts"] = std::move(conflicts);
    return j;
}

json to_json(const Interface& i)
{
    return {{"name", json_or_null(i.name)},
            {"ifindex", json_or_null(i.ifindex)},
            {"mtu", json_or_null(i.mtu)},
            {"up", i.up}};
}

json to_json(const ModuleInfo& m)
{
    json j = json::object();
    j["version"] = json_or_null(m.version);
    j["iflist"] = json_or_null(m.iflist);
    j["deadsecs"] = json_or_null(m.deadsecs);
    j["maxout"] = json_or_null(m.maxout);
    j["dyndevs"] = json_or_null(m.dyndevs);
    j["maxsectors"] = json_or_null(m.maxsectors);
    j["fast_fail"] = json_or_null(m.fast_fail);
    j["flush"] = m.flush_mode ? json(flush_mode_name(*m.flush_mode)) : json(nullptr);
    j["generation"] = json_or_null(m.generation);
    j["targets"] = json_or_null(m.ntargets);
    j["evictions"] = json_or_null(m.evictions);
    j["drops"] = m.drops ? drops_json(*m.drops) : json(nullptr);
    json ifs = json::array();
    for (const auto& i : m.interfaces)
        ifs.push_back(to_json(i));
    j["interfaces"] = std::move(ifs);
    return j;
}

}  // namespace aoe
