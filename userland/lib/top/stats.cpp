// aoe-top's model: rates, history, events. See stats.hpp.
#include "top/stats.hpp"

#include <algorithm>
#include <limits>

#include "aoe_netlink.h"

namespace aoe::top {

namespace {

// A counter that went backwards by less than this across 2^64 is taken to
// have wrapped; anything else is a reset.
constexpr uint64_t kMaxWrapDelta = uint64_t{1} << 48;

std::optional<double> sum_opt(const std::optional<double>& a, const std::optional<double>& b)
{
    if (!a && !b)
        return std::nullopt;
    return a.value_or(0) + b.value_or(0);
}

}  // namespace

std::optional<double> counter_rate(const std::optional<uint64_t>& prev,
                                   const std::optional<uint64_t>& cur, double dt)
{
    if (!prev || !cur || !(dt > 0))
        return std::nullopt;
    uint64_t delta = *cur - *prev;  // modulo 2^64: right across a wraparound
    if (*cur < *prev && delta > kMaxWrapDelta)
        return std::nullopt;  // reset, not wrap
    return static_cast<double>(delta) / dt;
}

Rates compute_rates(const Counters& p, const Counters& c, double dt)
{
    Rates r;
    r.read_Bps = counter_rate(p.bytes_read, c.bytes_read, dt);
    r.write_Bps = counter_rate(p.bytes_written, c.bytes_written, dt);
    r.iops = sum_opt(counter_rate(p.read_reqs, c.read_reqs, dt),
                     counter_rate(p.write_reqs, c.write_reqs, dt));
    r.retrans_ps = counter_rate(p.retransmits, c.retransmits, dt);
    r.lost_ps = counter_rate(p.lost, c.lost, dt);
    return r;
}

const Path* TargetStats::best_path() const
{
    const Path* best = nullptr;
    for (const auto& ps : paths) {
        const Path& p = ps.path;
        bool up = p.state && *p.state == AOE_PATH_STATE_UP;
        if (!up || !p.rtt_avg_us)
            continue;
        if (!best || *p.rtt_avg_us < *best->rtt_avg_us)
            best = &p;
    }
    if (!best)
        for (const auto& ps : paths)
            if (ps.path.rtt_avg_us && (!best || *ps.path.rtt_avg_us < *best->rtt_avg_us))
                best = &ps.path;
    return best;
}

static bool same_path(const Path& a, const Path& b)
{
    return a.mac == b.mac && a.ifindex == b.ifindex && a.ifname == b.ifname &&
           a.netnsid == b.netnsid;
}

void Model::update(const Sample& s)
{
    loaded_ = s.module_loaded;
    error_ = s.error;
    wall_ = s.wall;
    ++samples_;
    if (!s.module_loaded) {
        targets_.clear();
        info_ = {};
        last_.reset();
        return;
    }
    info_ = s.info;
    double dt = last_ ? std::chrono::duration<double>(s.when - *last_).count() : 0.0;
    last_ = s.when;

    std::vector<TargetStats> next;
    next.reserve(s.targets.size());
    for (const auto& t : s.targets) {
        TargetStats ts;
        ts.target = t;
        auto old = std::find_if(targets_.begin(), targets_.end(), [&](const TargetStats& o) {
            return o.target.shelf == t.shelf && o.target.slot == t.slot;
        });
        // A new generation is a new target: no rates against the old one.
        bool same = old != targets_.end() && old->target.generation == t.generation;
        if (same) {
            ts.rates = compute_rates(old->target.counters, t.counters, dt);
            ts.history = std::move(old->history);
        }
        for (const auto& p : t.paths) {
            PathStats ps{p, {}};
            if (same)
                for (const auto& op : old->paths)
                    if (same_path(op.path, p))
                        ps.rates = compute_rates(op.path.counters, p.counters, dt);
            if (p.state && *p.state == AOE_PATH_STATE_UP)
                ++ts.paths_up;
            ts.paths.push_back(std::move(ps));
        }
        if (ts.rates.read_Bps || ts.rates.write_Bps) {
            ts.history.push_back(ts.rates.read_Bps.value_or(0) + ts.rates.write_Bps.value_or(0));
            while (ts.history.size() > kHistory)
                ts.history.pop_front();
        }
        if (ts.rates.retrans_ps && *ts.rates.retrans_ps > 0) {
            double before = same && old->rates.retrans_ps ? *old->rates.retrans_ps : 0.0;
            ts.retrans_rising = *ts.rates.retrans_ps >= before;
        }
        next.push_back(std::move(ts));
    }
    std::sort(next.begin(), next.end(), [](const TargetStats& a, const TargetStats& b) {
        return std::pair(a.target.shelf, a.target.slot) < std::pair(b.target.shelf, b.target.slot);
    });
    targets_ = std::move(next);
}

void Model::apply_event(const Event& e)
{
    const Target& et = e.target;
    std::string dev = device_name(et.shelf, et.slot);
    last_event_ = dev + " " + event_name(e.cmd);
    auto it = std::find_if(targets_.begin(), targets_.end(), [&](const TargetStats& o) {
        return o.target.shelf == et.shelf && o.target.slot == et.slot;
    });
    if (it == targets_.end())
        return;  // new targets show up with the sample the event triggers
    switch (e.cmd) {
    case AOE_CMD_TARGET_GONE:
        targets_.erase(it);
        break;
    case AOE_CMD_TARGET_UP:
        it->target.state = AOE_TARGET_STATE_UP;
        break;
    case AOE_CMD_TARGET_DOWN:
        it->target.state = AOE_TARGET_STATE_DOWN;
        break;
    default:
        if (et.state)
            it->target.state = et.state;
        if (et.payload)
            it->target.payload = et.payload;
        if (et.sectors)
            it->target.sectors = et.sectors;
        break;
    }
}

const TargetStats* Model::find(const std::string& device) const
{
    for (const auto& t : targets_)
        if (t.target.device == device)
            return &t;
    return nullptr;
}

Totals Model::totals() const
{
    Totals tot;
    for (const auto& t : targets_) {
        tot.read_Bps = sum_opt(tot.read_Bps, t.rates.read_Bps);
        tot.write_Bps = sum_opt(tot.write_Bps, t.rates.write_Bps);
        tot.iops = sum_opt(tot.iops, t.rates.iops);
        tot.retrans_ps = sum_opt(tot.retrans_ps, t.rates.retrans_ps);
        uint32_t st = t.target.state.value_or(0);
        if (st == AOE_TARGET_STATE_UP)
            ++tot.up;
        else if (st == AOE_TARGET_STATE_DOWN)
            ++tot.down;
        else
            ++tot.other;
    }
    return tot;
}

}  // namespace aoe::top
