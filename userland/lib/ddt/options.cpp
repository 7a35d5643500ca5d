#include "ddt/options.hpp"

#include <charconv>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ddt/errors.hpp"
#include "ddt/size.hpp"

namespace aoe::ddt {

namespace po = boost::program_options;

namespace {

po::options_description visible()
{
    po::options_description d("Options");
    // clang-format off
    d.add_options()
        ("read,r", "sequential (or --random) reads (the default)")
        ("write,w", "writes; destroys the target's data")
        ("verify", "write a self-checking pattern, read it back and check every sector")
        ("verify-only", "only read back and check the pattern an earlier --verify run wrote (needs --run-id)")
        ("run-id", po::value<std::string>()->value_name("ID"), "the verify pattern's run id (default: random; printed in the report)")
        ("random", "random offsets (each block once per pass) instead of sequential")
        ("bs,b", po::value<std::string>()->value_name("SIZE"), "block size (default 1M)")
        ("iodepth,q", po::value<std::string>()->value_name("N"), "I/Os in flight per job (default 8)")
        ("iodepth-batch", po::value<std::string>()->value_name("N"), "submit in batches of N, like fio's iodepth_batch_submit (default: all free slots at once)")
        ("jobs,j", po::value<std::string>()->value_name("N"), "parallel workers on disjoint regions (default 1)")
        ("size,s", po::value<std::string>()->value_name("SIZE"), "bytes to cover (default: the whole target)")
        ("time,t", po::value<std::string>()->value_name("SECONDS"), "stop after this long")
        ("offset", po::value<std::string>()->value_name("SIZE"), "start this far into the target")
        ("buffered", "buffered I/O through the page cache instead of O_DIRECT")
        ("hugepages", "I/O buffers on transparent huge pages (fewer segments per request; fio uses 4 KiB pages)")
        ("no-hugepages", "I/O buffers on 4 KiB pages, like fio (the default)")
        ("force", "write even to a block device that is in use or has a signature")
        ("json", "machine-readable report on stdout")
        ("progress", "live progress line on stderr even when it is not a terminal")
        ("no-progress", "no progress line")
        ("verbose,v", "log what it does on stderr (-vv: more)")
        ("help,h", "this help")
        ("version,V", "print the version");
    // clang-format on
    return d;
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

std::string usage_text()
{
    std::ostringstream o;
    o << "usage: aoe-ddt [-r|-w|--verify|--verify-only] [--run-id ID] [--random]\n"
         "               [-b SIZE] [-q N] [--iodepth-batch N] [-j N] [-s SIZE] [-t SECONDS]\n"
         "               [--offset SIZE] [--buffered] [--hugepages] [--force] [--json]\n"
         "               [--progress|--no-progress] [-v] TARGET\n"
         "Measures throughput, latency and integrity of a block device or file.\n\n"
      << visible();
    return o.str();
}

Config parse_args(const std::vector<std::string>& args)
{
    auto opts = visible();
    po::options_description hidden;
    hidden.add_options()("target", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description pos;
    pos.add("target", -1);

    po::variables_map vm;
    try {
        // Repeated -v: count the occurrences ourselves; program_options only keeps one.
        std::vector<std::string> rest;
        int verbose = 0;
        for (const auto& a : args) {
            if (a.size() >= 2 && a[0] == '-' && a[1] == 'v' &&
                a.find_first_not_of('v', 1) == std::string::npos)
                verbose += static_cast<int>(a.size() - 1);
            else if (a == "--verbose")
                ++verbose;
            else
                rest.push_back(a);
        }
        po::store(po::command_line_parser(rest)
                      .options(all)
                      .positional(pos)
                      .style(po::command_line_style::unix_style)
                      .run(),
                  vm);
        po::notify(vm);
        Config c;
        c.verbosity = verbose;
        if (vm.count("help")) {
            c.help = true;
            return c;
        }
        if (vm.count("version")) {
            c.version = true;
            return c;
        }
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
            try {
                size_t used = 0;
                c.run_id = std::stoull(s, &used, 0);
                if (used != s.size())
                    throw std::invalid_argument(s);
            } catch (const std::exception&) {
                throw UsageError(fmt::format("--run-id: '{}' is not a number", s));
            }
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
        c.json = vm.count("json") > 0;
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
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
}

Config parse_args(int argc, const char* const* argv)
{
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    return parse_args(args);
}

}  // namespace aoe::ddt
