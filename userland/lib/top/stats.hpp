// aoe-top's model: samples of the module's state from a Source (the netlink
// client in production, a synthetic source in tests and benchmarks), rates
// as counter deltas over monotonic time (wraparound and reset aware), and a
// throughput history per target. No terminal in here.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model.hpp"  // aoe::Target, aoe::ModuleInfo

namespace aoe::top {

using Clock = std::chrono::steady_clock;

// One look at the module.
using WallClock = std::chrono::system_clock;

struct Sample {
    Clock::time_point when{};
    WallClock::time_point wall{};  // when, as wall-clock time (printed by -b)
    bool module_loaded = true;
    std::string error;  // why there is no data ("aoe module not loaded: ...")
    ModuleInfo info;
    std::vector<Target> targets;
};

// Where samples come from.
class Source {
public:
    virtual ~Source() = default;
    virtual Sample sample() = 0;
    // A descriptor that becomes readable when events are pending, or -1.
    virtual int event_fd() { return -1; }
    // Reads pending events without blocking; returns them.
    virtual std::vector<Event> read_events() { return {}; }
};

// The aoe module over generic netlink; keeps waiting when it is not loaded.
std::unique_ptr<Source> make_netlink_source();

// n targets e1.0 ... with steadily growing counters (retransmits rising on
// every third target), two paths each; for tests and the CPU benchmark.
class SyntheticSource : public Source {
public:
    explicit SyntheticSource(unsigned n, bool real_time = true);
    Sample sample() override;
    // With real_time false, each sample is one second after the previous.
    unsigned step() const { return step_; }

private:
    unsigned n_;
    bool real_time_;
    unsigned step_ = 0;
    Clock::time_point start_;
};

// "synthetic:N" -> SyntheticSource(N), "netlink" -> make_netlink_source();
// throws UsageError otherwise.
std::unique_ptr<Source> make_source(const std::string& spec);

// Rate of a counter between two samples dt seconds apart: nullopt when either
// is missing, dt is not positive, or the counter went backwards by more than
// a 64-bit wraparound explains (a reset: module reloaded, target re-created).
std::optional<double> counter_rate(const std::optional<uint64_t>& prev,
                                   const std::optional<uint64_t>& cur, double dt);

struct Rates {
    std::optional<double> read_Bps;
    std::optional<double> write_Bps;
    std::optional<double> iops;
    std::optional<double> retrans_ps;
    std::optional<double> lost_ps;
};
Rates compute_rates(const Counters& prev, const Counters& cur, double dt);

struct PathStats {
    Path path;
    Rates rates;
};

struct TargetStats {
    Target target;
    Rates rates;  // all nullopt on the target's first sample
    std::vector<PathStats> paths;
    std::deque<double> history;  // read+write bytes/s, oldest first
    bool retrans_rising = false;  // retransmits/s > 0 and not falling
    unsigned paths_up = 0;
    const Path* best_path() const;  // lowest average RTT among paths up
};

struct Totals {
    std::optional<double> read_Bps, write_Bps, iops, retrans_ps;
    unsigned up = 0, down = 0, other = 0;
};

class Model {
public:
    static constexpr size_t kHistory = 120;

    // Takes a new sample: rates against the previous one; targets that are
    // no longer listed are dropped.
    void update(const Sample& s);
    // Applies an event at once (state change, removal) until the next sample.
    void apply_event(const Event& e);

    bool module_loaded() const { return loaded_; }
    const std::string& error() const { return error_; }
    const ModuleInfo& info() const { return info_; }
    const std::vector<TargetStats>& targets() const { return targets_; }  // device order
    const TargetStats* find(const std::string& device) const;
    Totals totals() const;
    unsigned samples() const { return samples_; }
    // Wall-clock time of the last sample (epoch before the first).
    WallClock::time_point wall_time() const { return wall_; }
    // The last event as text ("e1.2 down"), empty if none.
    const std::string& last_event() const { return last_event_; }

private:
    bool loaded_ = false;
    std::string error_;
    ModuleInfo info_;
    std::vector<TargetStats> targets_;
    std::optional<Clock::time_point> last_;
    WallClock::time_point wall_{};
    unsigned samples_ = 0;
    std::string last_event_;
};

}  // namespace aoe::top
