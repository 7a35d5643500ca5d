// aoe-ddt: CPU use during a run, from getrusage (this process) and /proc/stat (machine).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace aoe::ddt {

// The aggregate "cpu" line of /proc/stat, in clock ticks.
struct ProcStat {
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
             steal = 0;
    uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

// Parses the text of /proc/stat; nullopt if it has no aggregate "cpu " line.
std::optional<ProcStat> parse_proc_stat(std::string_view text);
// Reads /proc/stat; nullopt when it cannot be read.
std::optional<ProcStat> read_proc_stat();

struct SystemCpu {
    bool valid = false;
    double busy_pct = 0, sys_pct = 0, softirq_pct = 0, irq_pct = 0, iowait_pct = 0;
};
// Percentages of all CPUs' time between two samples. busy = everything but idle and
// iowait.
SystemCpu system_cpu(const ProcStat& before, const ProcStat& after);

struct ProcessCpuSample {
    double user_s = 0, sys_s = 0;
};
ProcessCpuSample process_cpu();

struct CpuReport {
    double usr_pct = 0, sys_pct = 0;  // of one CPU, like fio and time(1)
    SystemCpu system;
};

// Takes both samples at construction and again at finish().
class CpuMeter {
public:
    CpuMeter();
    CpuReport finish(double wall_seconds) const;

private:
    ProcessCpuSample proc_;
    std::optional<ProcStat> stat_;
};

}  // namespace aoe::ddt
