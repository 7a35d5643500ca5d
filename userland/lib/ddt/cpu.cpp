#include "ddt/cpu.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

namespace aoe::ddt {

std::optional<ProcStat> parse_proc_stat(std::string_view text)
{
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("cpu ", 0) != 0)
            continue;
        std::istringstream f(line.substr(4));
        ProcStat s;
        if (!(f >> s.user >> s.nice >> s.system >> s.idle))
            return std::nullopt;
        // iowait, irq, softirq and steal appeared in later kernels; absent means 0.
        f >> s.iowait >> s.irq >> s.softirq >> s.steal;
        return s;
    }
    return std::nullopt;
}

std::optional<ProcStat> read_proc_stat()
{
    std::ifstream in("/proc/stat");
    if (!in)
        return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_proc_stat(ss.str());
}

SystemCpu system_cpu(const ProcStat& a, const ProcStat& b)
{
    SystemCpu r;
    if (b.total() <= a.total())
        return r;
    double total = static_cast<double>(b.total() - a.total());
    auto pct = [&](uint64_t x, uint64_t y) {
        return y >= x ? 100.0 * static_cast<double>(y - x) / total : 0.0;
    };
    double idle = pct(a.idle, b.idle);
    r.iowait_pct = pct(a.iowait, b.iowait);
    r.busy_pct = 100.0 - idle - r.iowait_pct;
    if (r.busy_pct < 0)
        r.busy_pct = 0;
    r.sys_pct = pct(a.system, b.system);
    r.softirq_pct = pct(a.softirq, b.softirq);
    r.irq_pct = pct(a.irq, b.irq);
    r.valid = true;
    return r;
}

ProcessCpuSample process_cpu()
{
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    auto sec = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
    return {sec(ru.ru_utime), sec(ru.ru_stime)};
}

CpuMeter::CpuMeter() : proc_(process_cpu()), stat_(read_proc_stat()) {}

CpuReport CpuMeter::finish(double wall) const
{
    CpuReport r;
    ProcessCpuSample now = process_cpu();
    if (wall > 0) {
        r.usr_pct = 100.0 * (now.user_s - proc_.user_s) / wall;
        r.sys_pct = 100.0 * (now.sys_s - proc_.sys_s) / wall;
    }
    auto end = read_proc_stat();
    if (stat_ && end)
        r.system = system_cpu(*stat_, *end);
    return r;
}

}  // namespace aoe::ddt
