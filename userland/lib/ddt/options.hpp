// aoe-ddt: command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aoe::ddt {

enum class Mode { read, write, verify, verify_only };
enum class Progress { automatic, on, off };

struct Config {
    std::string target;
    Mode mode = Mode::read;
    bool random = false;
    uint64_t bs = 1 << 20;
    unsigned iodepth = 8;
    unsigned batch = 0;  // --iodepth-batch; 0 = everything free in one io_submit
    unsigned jobs = 1;
    std::optional<uint64_t> size;  // default: target size - offset
    double time_limit = 0;         // seconds, 0 = none
    uint64_t offset = 0;
    std::optional<uint64_t> run_id;  // --run-id: pattern id to write / expect
    bool buffered = false;
    bool hugepages = false;  // --hugepages: buffers on transparent huge pages
    bool force = false;
    bool json = false;
    Progress progress = Progress::automatic;
    int verbosity = 0;
    bool help = false;
    bool version = false;
};

inline constexpr unsigned kMaxIodepth = 4096;
inline constexpr unsigned kMaxJobs = 256;
inline constexpr uint64_t kMaxBs = uint64_t{1} << 30;

// Parses argv; throws UsageError (one line, says what is wrong) on bad input.
// Checks that need the target (sizes against its geometry) happen later.
Config parse_args(int argc, const char* const* argv);
Config parse_args(const std::vector<std::string>& args);  // without argv[0]

std::string usage_text();

}  // namespace aoe::ddt
