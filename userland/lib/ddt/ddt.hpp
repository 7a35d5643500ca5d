// aoe-ddt: the whole tool behind its thin main().
#pragma once

#include "ddt/options.hpp"
#include "ddt/report.hpp"

namespace aoe::ddt {

// Parses the command line, runs, prints the report; returns the exit code
// (cli::ExitCode: 0 ok, 1 error or failed I/O, 2 usage, 3 bad sectors found,
// 4 refused for safety).
int main(int argc, char** argv);

// Runs one configured test and returns its report. Throws UsageError, Refused or
// Error. Honours SIGINT/SIGTERM when signals_blocked is true (the caller has
// blocked them in every thread): they stop the run and mark the report interrupted.
Report run(const Config& cfg, bool signals_blocked);

}  // namespace aoe::ddt
