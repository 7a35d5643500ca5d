#include "ddt/options.hpp"

#include <charconv>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "ddt/size.hpp"

namespace aoe::ddt {

namespace po = boost::program_options;

namespace {

void add_ddt_options(po::options_description& d)
{
    // clang-format off
    d.add_options()
        ("read,r", "sequential (or --random) reads (the default)")
        ("write,w", "writes; destroys the target's data")
        ("verify", "write a self-checking pattern, read it back and check every sector")
        ("verify-only", "only read back and check the pattern an earlier --verify run wrote (needs --run-id)")
        ("run-id", po::value<std::string>()->value_name("ID"), "the verify pattern's run id, 0x... hex or decimal (default: random; printed in the report)")
        ("random", "random offsets (each block once per pass) instead of sequential")
        ("bs,b", po::value<std::string>()->value_name("SIZE"), "block size (default 1M)")
        ("iodepth,q", po::value<std::string>()->value_name("N"), "I/Os in flight per job (default 8)")
        ("iodepth-batch", po::value<std::string>()->value_name("N"), "io_submit every N prepared requests, like fio's iodepth_batch_submit (default 1)")
        ("iodepth-batch-complete-max", po::value<std::string>()->value_name("N"), "reap at most N completions per io_getevents, like fio's iodepth_batch_complete_max (default 1)")
        ("jobs,j", po::value<std::string>()->value_name("N"), "parallel workers on disjoint regions (default 1)")
        ("size,s", po::value<std::string>()->value_name("SIZE"), "bytes to cover (default: the whole target)")
        ("time,t", po::value<std::string>()->value_name("SECONDS"), "stop after this long")
        ("offset", po::value<std::string>()->value_name("SIZE"), "start this far into the target")
        ("buffered", "buffered I/O through the page cache instead of O_DIRECT")
        ("hugepages", "I/O buffers on transparent huge pages (fewer segments per request; fio uses 4 KiB pages)")
        ("no-hugepages", "I/O buffers on 4 KiB pages, like fio (the default)")
        ("force", "write over a filesystem, RAID or partition-table signature")
        ("force-mounted", "write even to a device that is mounted, held (dm, md) or used as swap")
        ("continue-on-error", "count I/O errors and go on (default: stop at the first, like fio)")
        ("json", "machine-readable report on stdout")
        ("lat-log", po::value<std::string>()->value_name("FILE"), "write every I/O's total latency to FILE as fio's --write_lat_log _lat log: 'msec, nsec, ddir, bs, offset'")
        ("progress", "live progress line on stderr even when it is not a terminal")
        ("no-progress", "no progress line");
    // clang-format on
}

uint64_t size_arg(const po::variables_map& vm, const char* name)
{
    const auto& s = vm[name].as<std::string>();
    auto v = parse_size(s);
    if (!v)
        throw UsageError(fmt::format(
            "--{}: '{}' is not a size (a number with an optional K, M, G or T suffix)", name, s));
    return *v;
}

unsigned count_arg(const po::variables_map& vm, const char* name, unsigned max)
{
    const auto& s = vm[name].as<std::string>();
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        throw UsageError(fmt::format("--{}: '{}' is not a number", name, s));
    if (v == 0 || v > max)
        throw UsageError(fmt::format("--{}: {} is out of range (1 to {})", name, s, max));
    return static_cast<unsigned>(v);
}

}  // namespace

std::string format_run_id(uint64_t id)
{
    return fmt::format("{:#x}", id);
}

std::optional<uint64_t> parse_run_id(const std::string& text)
{
    try {
        size_t used = 0;
        uint64_t v = std::stoull(text, &used, 0);
        if (used != text.size() || text.empty() || text[0] == '-' || text[0] == '+')
            return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::unique_ptr<cli::Tool> make_tool()
{
    auto tool = std::make_unique<cli::Tool>(
        "aoe-ddt",
        "[-r|-w|--verify|--verify-only] [--run-id ID] [--random]\n"
        "               [-b SIZE] [-q N] [--iodepth-batch N] [--iodepth-batch-complete-max N]\n"
        "               [-j N] [-s SIZE] [-t SECONDS]\n"
        "               [--offset SIZE] [--buffered] [--hugepages] [--force] [--force-mounted]\n"
        "               [--continue-on-error] [--json] [--progress|--no-progress] [-v] TARGET",
        "Measures throughput, latency and integrity of a block device or file.\n"
        "Exit status 3: bad sectors found; 4: refused to write (see --force).");
    add_ddt_options(tool->options());
    tool->hidden().add_options()("target", po::value<std::vector<std::string>>());
    tool->positional().add("target", -1);
    return tool;
}

Config config_from(const cli::Tool& tool)
{
    const po::variables_map& vm = tool.vm();
    {
        Config c;
        c.verbosity = tool.verbosity();
        int modes = static_cast<int>(vm.count("read") + vm.count("write") + vm.count("verify") +
                                     vm.count("verify-only"));
        if (modes > 1)
            throw UsageError("choose one of -r/--read, -w/--write, --verify and --verify-only");
        c.mode = vm.count("write")         ? Mode::write
                 : vm.count("verify")      ? Mode::verify
                 : vm.count("verify-only") ? Mode::verify_only
                                           : Mode::read;
        if (vm.count("run-id")) {
            const auto& s = vm["run-id"].as<std::string>();
            c.run_id = parse_run_id(s);
            if (!c.run_id)
                throw UsageError(fmt::format("--run-id: '{}' is not a number (0x... or decimal)", s));
            if (c.mode != Mode::verify && c.mode != Mode::verify_only)
                throw UsageError("--run-id only goes with --verify or --verify-only");
        }
        if (c.mode == Mode::verify_only && !c.run_id)
            throw UsageError("--verify-only needs --run-id (printed by the --verify run that wrote the pattern)");
        c.random = vm.count("random") > 0;
        if (vm.count("bs")) {
            c.bs = size_arg(vm, "bs");
            if (c.bs == 0 || c.bs > kMaxBs)
                throw UsageError(fmt::format("--bs: {} is out of range (512 bytes to 1G)",
                                             vm["bs"].as<std::string>()));
        }
        if (vm.count("iodepth"))
            c.iodepth = count_arg(vm, "iodepth", kMaxIodepth);
        if (vm.count("iodepth-batch"))
            c.batch = count_arg(vm, "iodepth-batch", kMaxIodepth);
        if (vm.count("iodepth-batch-complete-max"))
            c.reap = count_arg(vm, "iodepth-batch-complete-max", kMaxIodepth);
        if (vm.count("jobs"))
            c.jobs = count_arg(vm, "jobs", kMaxJobs);
        if (vm.count("size")) {
            c.size = size_arg(vm, "size");
            if (*c.size == 0)
                throw UsageError("--size: must be more than 0");
        }
        if (vm.count("offset"))
            c.offset = size_arg(vm, "offset");
        if (vm.count("time")) {
            const auto& s = vm["time"].as<std::string>();
            try {
                size_t used = 0;
                c.time_limit = std::stod(s, &used);
                if (used != s.size())
                    throw std::invalid_argument(s);
            } catch (const std::exception&) {
                throw UsageError(fmt::format("--time: '{}' is not a number of seconds", s));
            }
            if (!(c.time_limit > 0) || c.time_limit > 1e7)
                throw UsageError(fmt::format("--time: {} is out of range", s));
        }
        c.buffered = vm.count("buffered") > 0;
        if (vm.count("hugepages") && vm.count("no-hugepages"))
            throw UsageError("--hugepages and --no-hugepages exclude each other");
        c.hugepages = vm.count("hugepages") > 0;
        c.force = vm.count("force") > 0;
        c.force_mounted = vm.count("force-mounted") > 0;
        c.continue_on_error = vm.count("continue-on-error") > 0;
        c.json = vm.count("json") > 0;
        if (vm.count("lat-log"))
            c.lat_log = vm["lat-log"].as<std::string>();
        if (vm.count("progress") && vm.count("no-progress"))
            throw UsageError("--progress and --no-progress contradict each other");
        c.progress = vm.count("progress")      ? Progress::on
                     : vm.count("no-progress") ? Progress::off
                                               : Progress::automatic;
        if (!vm.count("target"))
            throw UsageError("no TARGET given (a block device such as /dev/etherd/e1.2, or a file)");
        const auto& t = vm["target"].as<std::vector<std::string>>();
        if (t.size() != 1)
            throw UsageError("give exactly one TARGET");
        c.target = t.front();
        return c;
    }
}

Config parse_args(const std::vector<std::string>& args)
{
    auto tool = make_tool();
    if (tool->parse(args) != cli::Tool::Parsed::run)
        throw UsageError("--help and --version are not a run");
    return config_from(*tool);
}

}  // namespace aoe::ddt
