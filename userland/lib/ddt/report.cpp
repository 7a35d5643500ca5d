#include "ddt/report.hpp"

#include <fmt/format.h>

#include "ddt/size.hpp"

namespace aoe::ddt {

void DirStats::merge(const DirStats& o)
{
    bytes += o.bytes;
    ios += o.ios;
    errors += o.errors;
    seconds = std::max(seconds, o.seconds);
    lat.merge(o.lat);
    if (first_error.empty())
        first_error = o.first_error;
}

void VerifyStats::merge(const VerifyStats& o)
{
    checked_sectors += o.checked_sectors;
    bad_sectors += o.bad_sectors;
    if (o.first_bad_lba && (!first_bad_lba || *o.first_bad_lba < *first_bad_lba)) {
        first_bad_lba = o.first_bad_lba;
        first_bad_what = o.first_bad_what;
    }
}

bool Report::failed() const
{
    return (read && read->errors) || (write && write->errors) ||
           (verify && verify->bad_sectors);
}

namespace {

double us(double ns) { return ns / 1e3; }

std::string summary_line(const char* dir, const DirStats& d, const CpuReport& cpu)
{
    return fmt::format("{}: {} in {:.1f} s, {:.1f} MB/s, {:.0f} IOPS, p99 {}, cpu usr {:.1f} % "
                       "sys {:.1f} %\n",
                       dir, format_mib(d.bytes), d.seconds, d.bw() / 1e6, d.iops(),
                       format_usec(us(d.lat.percentile(99))), cpu.usr_pct, cpu.sys_pct);
}

std::string detail_lines(const char* dir, const DirStats& d)
{
    std::string s = fmt::format(
        "  {} bytes {}, {:.1f} MB/s = {:.1f} MiB/s, {} I/Os, {} errors\n"
        "  lat us: min {:.1f}, avg {:.1f}, p50 {:.1f}, p99 {:.1f}, p99.9 {:.1f}, max {:.1f}\n",
        dir, d.bytes, d.bw() / 1e6, d.bw() / (1 << 20), d.ios, d.errors,
        us(static_cast<double>(d.lat.min())), us(d.lat.mean()), us(d.lat.percentile(50)),
        us(d.lat.percentile(99)), us(d.lat.percentile(99.9)),
        us(static_cast<double>(d.lat.max())));
    if (!d.first_error.empty())
        s += fmt::format("  first {} error: {}\n", dir, d.first_error);
    return s;
}

nlohmann::json dir_json(const DirStats& d)
{
    return {
        {"bytes", d.bytes},
        {"ios", d.ios},
        {"seconds", d.seconds},
        {"bw_bytes_per_s", d.bw()},
        {"bw_mb_per_s", d.bw() / 1e6},
        {"bw_mib_per_s", d.bw() / (1 << 20)},
        {"iops", d.iops()},
        {"lat_us",
         {{"min", us(static_cast<double>(d.lat.min()))},
          {"mean", us(d.lat.mean())},
          {"p50", us(d.lat.percentile(50))},
          {"p99", us(d.lat.percentile(99))},
          {"p999", us(d.lat.percentile(99.9))},
          {"max", us(static_cast<double>(d.lat.max()))}}},
        {"errors", d.errors},
    };
}

}  // namespace

std::string format_text(const Report& r)
{
    std::string s;
    // Summary lines first (write before read: that is the order of a verify run).
    if (r.write)
        s += summary_line("write", *r.write, r.cpu);
    if (r.read)
        s += summary_line("read", *r.read, r.cpu);
    if (r.write)
        s += detail_lines("write", *r.write);
    if (r.read)
        s += detail_lines("read", *r.read);
    if (r.cpu.system.valid)
        s += fmt::format("  cpu: process usr {:.1f} % sys {:.1f} %; system busy {:.1f} % "
                         "(sys {:.1f} %, softirq {:.1f} %, irq {:.1f} %, iowait {:.1f} %)\n",
                         r.cpu.usr_pct, r.cpu.sys_pct, r.cpu.system.busy_pct,
                         r.cpu.system.sys_pct, r.cpu.system.softirq_pct,
                         r.cpu.system.irq_pct, r.cpu.system.iowait_pct);
    s += fmt::format("  {} {}, bs {}, iodepth {}, jobs {}, {} I/O{}, {}\n", r.mode,
                     r.random ? "random" : "sequential", format_iec(r.bs), r.iodepth, r.jobs,
                     r.buffered ? "buffered (page cache: not device numbers)" : "O_DIRECT",
                     r.hugepages ? " on huge-page buffers" : "", r.target);
    if (r.verify) {
        const auto& v = *r.verify;
        s += fmt::format("verify: run id {:#x}, {} sectors checked, {} bad", v.run_id,
                         v.checked_sectors, v.bad_sectors);
        if (v.first_bad_lba)
            s += fmt::format(", first bad LBA {}: {}", *v.first_bad_lba, v.first_bad_what);
        s += "\n";
    }
    if (r.interrupted)
        s += "interrupted: partial results\n";
    return s;
}

nlohmann::json to_json(const Report& r)
{
    nlohmann::json j;
    j["target"] = r.target;
    j["mode"] = r.mode;
    j["options"] = {{"random", r.random}, {"bs", r.bs},         {"iodepth", r.iodepth},
                    {"jobs", r.jobs},     {"offset", r.offset}, {"size", r.size},
                    {"buffered", r.buffered}, {"hugepages", r.hugepages}};
    if (r.read)
        j["read"] = dir_json(*r.read);
    if (r.write)
        j["write"] = dir_json(*r.write);
    nlohmann::json cpu = {{"usr_pct", r.cpu.usr_pct}, {"sys_pct", r.cpu.sys_pct}};
    if (r.cpu.system.valid)
        cpu["system"] = {{"busy_pct", r.cpu.system.busy_pct},
                         {"sys_pct", r.cpu.system.sys_pct},
                         {"softirq_pct", r.cpu.system.softirq_pct},
                         {"irq_pct", r.cpu.system.irq_pct},
                         {"iowait_pct", r.cpu.system.iowait_pct}};
    j["cpu"] = cpu;
    if (r.verify) {
        j["verify"] = {{"run_id", r.verify->run_id},
                       {"checked_sectors", r.verify->checked_sectors},
                       {"bad_sectors", r.verify->bad_sectors},
                       {"first_bad_lba", r.verify->first_bad_lba
                                             ? nlohmann::json(*r.verify->first_bad_lba)
                                             : nlohmann::json(nullptr)}};
        if (r.verify->first_bad_lba)
            j["verify"]["first_bad_found"] = r.verify->first_bad_what;
    }
    j["interrupted"] = r.interrupted;
    j["failed"] = r.failed();
    return j;
}

}  // namespace aoe::ddt
