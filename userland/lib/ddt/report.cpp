#include "ddt/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "ddt/options.hpp"
#include "ddt/size.hpp"

namespace aoe::ddt {

void DirStats::merge(const DirStats& o)
{
    bytes += o.bytes;
    ios += o.ios;
    errors += o.errors;
    seconds = std::max(seconds, o.seconds);
    slat.merge(o.slat);
    clat.merge(o.clat);
    lat.merge(o.lat);
    if (first_error.empty())
        first_error = o.first_error;
}

bool VerifyStats::would_list(uint64_t lba) const
{
    return bad.size() < kListed || lba < bad.back().lba;
}

void VerifyStats::note(uint64_t lba, std::string what)
{
    if (!would_list(lba))
        return;
    auto at = std::lower_bound(bad.begin(), bad.end(), lba,
                               [](const BadSector& b, uint64_t l) { return b.lba < l; });
    if (at != bad.end() && at->lba == lba)
        return;
    bad.insert(at, BadSector{lba, std::move(what)});
    if (bad.size() > kListed)
        bad.pop_back();
}

void VerifyStats::merge(const VerifyStats& o)
{
    checked_sectors += o.checked_sectors;
    bad_sectors += o.bad_sectors;
    for (const auto& b : o.bad)
        note(b.lba, b.what);
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

std::string lat_line(const char* name, const Histogram& h)
{
    return fmt::format(
        "  {:>4} us: min {:.1f}, avg {:.1f}, p50 {:.1f}, p99 {:.1f}, p99.9 {:.1f}, max {:.1f}\n",
        name, us(static_cast<double>(h.min())), us(h.mean()), us(h.percentile(50)),
        us(h.percentile(99)), us(h.percentile(99.9)), us(static_cast<double>(h.max())));
}

std::string detail_lines(const char* dir, const DirStats& d)
{
    std::string s = fmt::format("  {} bytes {}, {:.1f} MB/s = {:.1f} MiB/s, {} I/Os, {} errors\n",
                                dir, d.bytes, d.bw() / 1e6, d.bw() / (1 << 20), d.ios, d.errors);
    s += lat_line("slat", d.slat) + lat_line("clat", d.clat) + lat_line("lat", d.lat);
    if (!d.first_error.empty())
        s += fmt::format("  first {} error: {}\n", dir, d.first_error);
    return s;
}

Json lat_json(const Histogram& h)
{
    return {{"samples", h.count()},
            {"min", us(static_cast<double>(h.min()))},
            {"mean", us(h.mean())},
            {"p50", us(h.percentile(50))},
            {"p99", us(h.percentile(99))},
            {"p999", us(h.percentile(99.9))},
            {"max", us(static_cast<double>(h.max()))}};
}

Json dir_json(const DirStats& d)
{
    return {
        {"bytes", d.bytes},
        {"ios", d.ios},
        {"seconds", d.seconds},
        {"bw_bytes_per_s", d.bw()},
        {"bw_mb_per_s", d.bw() / 1e6},
        {"bw_mib_per_s", d.bw() / (1 << 20)},
        {"iops", d.iops()},
        {"slat_us", lat_json(d.slat)},
        {"clat_us", lat_json(d.clat)},
        {"lat_us", lat_json(d.lat)},
        {"errors", d.errors},
        {"first_error", d.first_error.empty() ? Json(nullptr)
                                              : Json(d.first_error)},
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
        s += fmt::format("verify: run id {}, {} sectors checked, {} bad", format_run_id(v.run_id),
                         v.checked_sectors, v.bad_sectors);
        if (!v.bad.empty())
            s += fmt::format(", first bad LBA {}: {}", v.bad.front().lba, v.bad.front().what);
        s += "\n";
        for (size_t i = 1; i < v.bad.size(); ++i)
            s += fmt::format("  bad LBA {}: {}\n", v.bad[i].lba, v.bad[i].what);
        if (v.bad_sectors > v.bad.size())
            s += fmt::format("  ({} more bad sectors not listed)\n", v.bad_sectors - v.bad.size());
    }
    if (r.interrupted)
        s += "interrupted: partial results\n";
    return s;
}

Json to_json(const Report& r)
{
    Json j;
    j["target"] = r.target;
    j["mode"] = r.mode;
    j["options"] = {{"random", r.random}, {"bs", r.bs},         {"iodepth", r.iodepth},
                    {"jobs", r.jobs},     {"offset", r.offset}, {"size", r.size},
                    {"buffered", r.buffered}, {"hugepages", r.hugepages}};
    if (r.read)
        j["read"] = dir_json(*r.read);
    if (r.write)
        j["write"] = dir_json(*r.write);
    Json cpu = {{"usr_pct", r.cpu.usr_pct}, {"sys_pct", r.cpu.sys_pct}};
    if (r.cpu.system.valid)
        cpu["system"] = {{"busy_pct", r.cpu.system.busy_pct},
                         {"sys_pct", r.cpu.system.sys_pct},
                         {"softirq_pct", r.cpu.system.softirq_pct},
                         {"irq_pct", r.cpu.system.irq_pct},
                         {"iowait_pct", r.cpu.system.iowait_pct}};
    j["cpu"] = cpu;
    if (r.verify) {
        const auto& v = *r.verify;
        Json bad = Json::array();
        for (const auto& b : v.bad)
            bad.push_back({{"lba", b.lba}, {"found", b.what}});
        j["verify"] = {{"run_id", format_run_id(v.run_id)},
                       {"checked_sectors", v.checked_sectors},
                       {"bad_sectors", v.bad_sectors},
                       {"first_bad_lba", v.bad.empty() ? Json(nullptr)
                                                       : Json(v.bad.front().lba)},
                       {"bad_lbas", std::move(bad)}};
        if (!v.bad.empty())
            j["verify"]["first_bad_found"] = v.bad.front().what;
    }
    j["interrupted"] = r.interrupted;
    j["failed"] = r.failed();
    return j;
}

}  // namespace aoe::ddt
