// aoe-top: live monitor of per-target throughput and retransmits (ncurses),
// or plain text / JSON lines every interval with -b. See man/aoe-top.8.
#include <sys/resource.h>

#include <iostream>

#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/regex.hpp"
#include "top/keys.hpp"
#include "top/tui.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-top", "[-d SECONDS] [-n ITERATIONS] [-b [--json]] [-s SORTKEY] [REGEX]",
                        "Live view of the AoE targets the aoe module knows: throughput, IOPS,\n"
                        "retransmits, timeouts and round-trip times per target and path. REGEX\n"
                        "(extended) keeps only the devices it matches. Keys: h in the screen.");
    double delay = 1.0;
    long iterations = 0;
    bool batch = false;
    bool json = false;
    std::string sort = "device";
    std::string pattern;
    std::string source = "netlink";
    bool rusage = false;
    tool.options().add_options()
        ("delay,d", po::value(&delay)->default_value(1.0), "seconds between samples (0.1 to 60)")
        ("iterations,n", po::value(&iterations)->default_value(0), "stop after this many samples (0: never)")
        ("batch,b", po::bool_switch(&batch), "print plain text every interval instead of the screen")
        ("json", po::bool_switch(&json), "with -b: one JSON object per line and sample")
        ("sort,s", po::value(&sort)->default_value("device"),
         "sort column: device, state, read, write, iops, retrans or rtt");
    tool.hidden().add_options()
        ("regex", po::value(&pattern))
        ("source", po::value(&source), "netlink or synthetic:N (tests)")
        ("rusage", po::bool_switch(&rusage), "print CPU time used on exit (tests)");
    tool.positional().add("regex", 1);

    return tool.run(argc, argv, [&] {
        if (!(delay >= aoe::top::kMinInterval && delay <= aoe::top::kMaxInterval))
            throw aoe::UsageError("-d must be between 0.1 and 60 seconds");
        if (iterations < 0)
            throw aoe::UsageError("-n must not be negative");
        if (json && !batch)
            throw aoe::UsageError("--json needs -b (batch mode)");
        aoe::top::UiState ui;
        ui.sort = aoe::top::parse_sort_key(sort);
        if (!pattern.empty()) {
            aoe::Regex check(pattern, aoe::Regex::Syntax::kExtended);  // RegexError: usage
            ui.filter = pattern;
        }
        aoe::top::RunOptions opt;
        opt.interval = delay;
        opt.iterations = iterations;
        opt.json = json;
        auto src = aoe::top::make_source(source);
        int rc = batch ? aoe::top::run_batch(*src, ui, opt, std::cout)
                       : aoe::top::run_screen(*src, ui, opt);
        if (rusage) {
            struct rusage ru {};
            getrusage(RUSAGE_SELF, &ru);
            std::cerr << "cpu_user_s " << ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
                      << " cpu_sys_s " << ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6 << '\n';
        }
        return rc;
    });
}
