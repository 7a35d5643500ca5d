#include "stat/prometheus.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <utility>

#include "aoe_netlink.h"
#include "stat/format.hpp"

namespace aoe {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
    std::string name;
    std::string type;  // "counter" or "gauge"
    std::string help;
    std::vector<std::string> samples;
};

// Families in the order they are first declared; samples appended later.
class Exposition {
public:
    Family& family(const std::string& name, const char* type, const char* help)
    {
        auto it = index_.find(name);
        if (it != index_.end())
            return families_[it->second];
        index_[name] = families_.size();
        families_.push_back({name, type, help, {}});
        return families_.back();
    }

    template <typename T>
    void add(const std::string& name, const char* type, const char* help, const Labels& labels,
             const std::optional<T>& value)
    {
        Family& f = family(name, type, help);
        if (value)
            f.samples.push_back(sample(name, labels, fmt::format("{}", *value)));
    }

    std::string text() const
    {
        std::string out;
        for (const auto& f : families_) {
            if (f.samples.empty())
                continue;
            out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
            for (const auto& s : f.samples)
                out += s;
        }
        return out;
    }

private:
    static std::string sample(const std::string& name, const Labels& labels,
                              const std::string& value)
    {
        std::string l;
        for (const auto& [k, v] : labels)
            l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, prom_escape(v));
        return l.empty() ? fmt::format("{} {}\n", name, value)
                         : fmt::format("{}{{{}}} {}\n", name, l, value);
    }

    std::vector<Family> families_;
    std::map<std::string, size_t> index_;
};

std::optional<double> us_to_s(const std::optional<uint32_t>& us)
{
    if (!us)
        return std::nullopt;
    return *us / 1e6;
}

std::optional<double> ms_to_s(const std::optional<uint64_t>& ms)
{
    if (!ms)
        return std::nullopt;
    return static_cast<double>(*ms) / 1e3;
}

// Prometheus-style names for the counters: base units, _total suffix.
struct CounterMetric {
    std::optional<uint64_t> Counters::*member;
    const char* suffix;
    const char* help;
};
const CounterMetric kCounterMetrics[] = {
    {&Counters::frames_sent, "frames_sent_total", "AoE frames sent"},
    {&Counters::frames_received, "frames_received_total", "AoE frames received"},
    {&Counters::retransmits, "retransmits_total", "ATA frames retransmitted"},
    {&Counters::timeouts, "timeouts_total", "ATA frame retransmission timeouts"},
    {&Counters::lost, "lost_total", "ATA frames given up on"},
    {&Counters::bytes_read, "read_bytes_total", "bytes read from the target"},
    {&Counters::bytes_written, "written_bytes_total", "bytes written to the target"},
    {&Counters::read_reqs, "read_requests_total", "read requests completed"},
    {&Counters::write_reqs, "write_requests_total", "write requests completed"},
    {&Counters::ata_errors, "ata_errors_total", "ATA errors reported by the target"},
    {&Counters::backoffs, "backoffs_total", "retransmission timeout backoffs (timeout events)"},
    {&Counters::flushes_sent, "flushes_sent_total", "FLUSH CACHE commands sent"},
    {&Counters::flushes_answered, "flushes_answered_total", "FLUSH CACHE commands answered"},
    {&Counters::flushes_failed, "flushes_failed_total", "flush requests failed"},
    {&Counters::fua_writes, "fua_writes_total", "WRITE DMA FUA EXT frames sent"},
    {&Counters::fence_ghosts, "fence_ghosts_total", "write copies maybe still in the network, fenced"},
    {&Counters::fence_held, "fence_held_writes_total", "writes held by the stale-write fence"},
    {&Counters::fence_held_us, "fence_held_microseconds_total", "time writes were held by the fence"},
    {&Counters::reserve_conflicts, "reserve_conflicts_total", "I/O frames refused: reserved by another initiator (AoE error 6)"},
};

void add_counters(Exposition& e, const std::string& prefix, const char* scope,
                  const Labels& labels, const Counters& c)
{
    for (const auto& m : kCounterMetrics)
        e.add(prefix + m.suffix, "counter", fmt::format("{} ({})", m.help, scope).c_str(), labels,
              c.*m.member);
    std::string drops = prefix + "dropped_frames_total";
    e.family(drops, "counter", "received frames dropped, by reason");
    if (c.drops)
        for (const auto& [reason, n] : *c.drops) {
            Labels l = labels;
            l.emplace_back("reason", drop_reason_name(reason));
            e.add(drops, "counter", "", l, std::optional<uint64_t>(n));
        }
}

void add_states(Exposition& e, const std::string& name, const char* help, const Labels& labels,
                std::optional<uint32_t> state, uint32_t first, uint32_t last,
                std::string (*state_name)(uint32_t))
{
    if (!state)
        return;
    for (uint32_t s = first; s <= last; ++s) {
        Labels l = labels;
        l.emplace_back("state", state_name(s));
        e.add(name, "gauge", help, l, std::optional<int>(*state == s ? 1 : 0));
    }
    if (*state < first || *state > last) {
        Labels l = labels;
        l.emplace_back("state", state_name(*state));
        e.add(name, "gauge", help, l, std::optional<int>(1));
    }
}

}  // namespace

std::string prom_escape(const std::string& value)
{
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string format_prometheus(const ModuleInfo* info, const std::vector<Target>& targets)
{
    Exposition e;
    e.add("aoe_up", "gauge", "1 if the aoe module answered over netlink", {},
          std::optional<int>(info ? 1 : 0));
    if (info) {
        Labels v{{"version", info->version.value_or("")}};
        e.add("aoe_module_info", "gauge", "aoe module loaded, with its version", v,
              std::optional<int>(1));
        e.add("aoe_module_targets", "gauge", "targets the aoe module knows", {}, info->ntargets);
        e.add("aoe_module_max_outstanding", "gauge", "aoe_maxout module parameter", {},
              info->maxout);
        e.add("aoe_module_dead_seconds", "gauge", "aoe_deadsecs module parameter", {},
              info->deadsecs);
        e.family("aoe_module_dropped_frames_total", "counter",
                 "frames the aoe module dropped, by reason");
        if (info->drops)
            for (const auto& [reason, n] : *info->drops)
                e.add("aoe_module_dropped_frames_total", "counter", "",
                      {{"reason", drop_reason_name(reason)}}, std::optional<uint64_t>(n));
        for (const auto& i : info->interfaces) {
            Labels l{{"interface", i.name}};
            e.add("aoe_module_interface_up", "gauge", "1 if an AoE interface is up and running",
                  l, std::optional<int>(i.up ? 1 : 0));
            e.add("aoe_module_interface_mtu_bytes", "gauge", "MTU of an AoE interface", l, i.mtu);
        }
    }
    for (const auto& t : targets) {
        Labels l{{"target", t.device}};
        Labels il = l;
        il.emplace_back("model", t.model.value_or(""));
        il.emplace_back("serial", t.serial.value_or(""));
        il.emplace_back("firmware", t.firmware.value_or(""));
        e.add("aoe_target_info", "gauge", "target identity from ATA IDENTIFY", il,
              std::optional<int>(1));
        add_states(e, "aoe_target_state", "1 for the state the target is in", l, t.state,
                   AOE_TARGET_STATE_INIT, AOE_TARGET_STATE_DOWN, &target_state_name);
        std::optional<uint64_t> size;
        if (t.sectors)
            size = *t.sectors * 512u;
        e.add("aoe_target_size_bytes", "gauge", "target capacity", l, size);
        e.add("aoe_target_payload_bytes", "gauge",
              "data bytes per ATA frame, minimum over usable paths", l, t.payload);
        e.add("aoe_target_outstanding_frames", "gauge", "ATA frames in flight, all paths", l,
              t.outstanding);
        e.add("aoe_target_last_rx_seconds", "gauge", "seconds since any path last answered", l,
              ms_to_s(t.last_rx_ms));
        e.add("aoe_target_paths", "gauge", "paths (interface x target MAC) to the target", l,
              std::optional<size_t>(t.paths.size()));
        size_t up = 0;
        for (const auto& p : t.paths)
            up += p.state && *p.state == AOE_PATH_STATE_UP;
        e.add("aoe_target_paths_up", "gauge", "paths to the target that carry I/O", l,
              std::optional<size_t>(up));
        std::optional<int> wc;
        if (t.cache)
            wc = (*t.cache & AOE_CACHE_WRITE_BACK) ? 1 : 0;
        e.add("aoe_target_write_cache", "gauge",
              "1 if the disk declares a volatile write cache (flushes are sent)", l, wc);
        add_counters(e, "aoe_target_", "target total", l, t.counters);
    }
    for (const auto& t : targets)
        for (const auto& p : t.paths) {
            Labels l{{"target", t.device},
                     {"interface", path_ifname(p)},
                     {"mac", format_mac(p.mac)}};
            add_states(e, "aoe_path_state", "1 for the state the path is in", l, p.state,
                       AOE_PATH_STATE_UP, AOE_PATH_STATE_CANDIDATE, &path_state_name);
            e.add("aoe_path_rtt_seconds", "gauge", "smoothed round-trip time", l,
                  us_to_s(p.rtt_avg_us));
            e.add("aoe_path_rtt_deviation_seconds", "gauge", "round-trip time mean deviation", l,
                  us_to_s(p.rtt_dev_us));
            e.add("aoe_path_rtt_min_seconds", "gauge", "smallest round-trip time seen", l,
                  us_to_s(p.rtt_min_us));
            e.add("aoe_path_rto_seconds", "gauge", "current retransmission timeout", l,
                  us_to_s(p.rto_us));
            e.add("aoe_path_window_frames", "gauge", "congestion window", l, p.window);
            e.add("aoe_path_outstanding_frames", "gauge", "ATA frames in flight on the path", l,
                  p.outstanding);
            e.add("aoe_path_payload_bytes", "gauge", "data bytes per ATA frame on the path", l,
                  p.payload);
            e.add("aoe_path_mtu_bytes", "gauge", "MTU of the local interface", l, p.mtu);
            e.add("aoe_path_buffers", "gauge", "target buffer count (Query Config)", l,
                  p.bufcnt);
            e.add("aoe_path_last_rx_seconds", "gauge", "seconds since the path last answered", l,
                  ms_to_s(p.last_rx_ms));
            add_counters(e, "aoe_path_", "path", l, p.counters);
        }
    return e.text();
}

}  // namespace aoe
