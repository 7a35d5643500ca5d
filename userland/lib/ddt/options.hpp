// aoe-ddt: command line, on the tools' one CLI layer (core/cli).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cli.hpp"

namespace aoe::ddt {

enum class Mode { read, write, verify, verify_only };
enum class Progress { automatic, on, off };

struct Config {
    std::string target;
    Mode mode = Mode::read;
    bool random = false;
    uint64_t bs = 1 << 20;
    unsigned iodepth = 8;
    unsigned batch = 1;  // --iodepth-batch: io_submit every N prepared requests (fio's
                         // iodepth_batch_submit, default 1 as there)
    unsigned reap = 1;   // --iodepth-batch-complete-max: completions reaped per io_getevents
                         // at most (fio's iodepth_batch_complete_max, default 1 as there)
    unsigned jobs = 1;
    std::optional<uint64_t> size;  // default: target size - offset
    double time_limit = 0;         // seconds, 0 = none
    uint64_t offset = 0;
    std::optional<uint64_t> run_id;  // --run-id: pattern id to write / expect
    bool buffered = false;
    bool hugepages = false;  // --hugepages: buffers on transparent huge pages
    bool force = false;          // write over old signatures
    bool force_mounted = false;  // write to a mounted / held / swap device
    bool continue_on_error = false;
    bool json = false;
    std::string lat_log;  // --lat-log FILE: every I/O's total latency, fio's _lat log format
    Progress progress = Progress::automatic;
    int verbosity = 0;
};

inline constexpr unsigned kMaxIodepth = 4096;
inline constexpr unsigned kMaxJobs = 256;
inline constexpr uint64_t kMaxBs = uint64_t{1} << 30;

// The aoe-ddt command line: the shared options plus aoe-ddt's own.
std::unique_ptr<cli::Tool> make_tool();
// The Config from what tool.parse() stored; throws UsageError (one line, says
// what is wrong) on bad input. Checks that need the target (sizes against its
// geometry) happen later.
Config config_from(const cli::Tool& tool);
// make_tool + parse + config_from, for the tests (args without argv[0]).
Config parse_args(const std::vector<std::string>& args);

// "0x1f2e...": how a run id is printed and put in JSON (a string: JSON readers
// round 64-bit integers); parse_run_id takes that, or a decimal number.
std::string format_run_id(uint64_t id);
std::optional<uint64_t> parse_run_id(const std::string& text);

}  // namespace aoe::ddt
