// aoe-ddt: results of a run and how they are printed (text and JSON).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

#include "ddt/cpu.hpp"
#include "ddt/histogram.hpp"

namespace aoe::ddt {

// One direction (read or write) of a run.
struct DirStats {
    uint64_t bytes = 0;
    uint64_t ios = 0;     // completed without error
    uint64_t errors = 0;  // failed or short I/Os (not in the histograms)
    double seconds = 0;
    // Latencies in ns, as fio's: slat from the request's preparation to the
    // return of the io_submit that took it (time blocked in submission: queue
    // full, nr_requests exceeded), clat from there to its reaping, lat (the
    // total, whose percentiles are reported) from preparation to reaping.
    Histogram slat;
    Histogram clat;
    Histogram lat;
    std::string first_error;  // "offset 4096: Input/output error"

    double bw() const { return seconds > 0 ? bytes / seconds : 0; }
    double iops() const { return seconds > 0 ? ios / seconds : 0; }
    void merge(const DirStats& o);
};

struct BadSector {
    uint64_t lba = 0;
    std::string what;  // what was found there
};

struct VerifyStats {
    static constexpr size_t kListed = 16;  // bad LBAs kept (the lowest)
    uint64_t run_id = 0;
    uint64_t checked_sectors = 0;
    uint64_t bad_sectors = 0;
    std::vector<BadSector> bad;  // the kListed lowest bad LBAs, ascending

    std::optional<uint64_t> first_bad_lba() const
    {
        return bad.empty() ? std::nullopt : std::optional<uint64_t>(bad.front().lba);
    }
    // Whether note() would keep a bad sector at lba (to describe only those).
    bool would_list(uint64_t lba) const;
    // Lists a bad sector (bad_sectors is counted by the caller).
    void note(uint64_t lba, std::string what);
    void merge(const VerifyStats& o);
};

struct Report {
    std::string target;
    std::string mode;  // "read", "write", "verify"
    bool random = false;
    uint64_t bs = 0;
    unsigned iodepth = 0;
    unsigned jobs = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    bool buffered = false;
    bool hugepages = false;  // I/O buffers on transparent huge pages
    bool interrupted = false;
    std::optional<DirStats> read;
    std::optional<DirStats> write;
    std::optional<VerifyStats> verify;
    CpuReport cpu;

    bool failed() const;  // I/O errors or bad sectors
};

// The human report: one summary line per direction first, then details.
std::string format_text(const Report& r);
Json to_json(const Report& r);

}  // namespace aoe::ddt
