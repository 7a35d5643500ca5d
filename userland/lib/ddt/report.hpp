// aoe-ddt: results of a run and how they are printed (text and JSON).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ddt/cpu.hpp"
#include "ddt/histogram.hpp"

namespace aoe::ddt {

// One direction (read or write) of a run.
struct DirStats {
    uint64_t bytes = 0;
    uint64_t ios = 0;     // completed without error
    uint64_t errors = 0;  // failed or short I/Os
    double seconds = 0;
    Histogram lat;        // completion latency, ns
    std::string first_error;  // "offset 4096: Input/output error"

    double bw() const { return seconds > 0 ? bytes / seconds : 0; }
    double iops() const { return seconds > 0 ? ios / seconds : 0; }
    void merge(const DirStats& o);
};

struct VerifyStats {
    uint64_t run_id = 0;
    uint64_t checked_sectors = 0;
    uint64_t bad_sectors = 0;
    std::optional<uint64_t> first_bad_lba;
    std::string first_bad_what;  // what was found at first_bad_lba
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

    bool failed() const;  // I/O errors or bad sectors: exit 1
};

// The human report: one summary line per direction first, then details.
std::string format_text(const Report& r);
nlohmann::json to_json(const Report& r);

}  // namespace aoe::ddt
