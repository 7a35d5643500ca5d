// The one command-line layer of the tools: Boost.Program_options with
// -h/--help, -V/--version ("aoe-<tool> (aoekit) <version>"), -v counting
// (-v -v, -vv and bundled with other short options: -rvv), the usage-error
// lines ("aoe-x: <problem>" then "Try 'aoe-x --help'.") and the exit codes.
// The exit codes are documented once, in aoe(4) EXIT STATUS; every tool's
// man page points there.
#pragma once

#include <boost/program_options.hpp>

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace aoe::cli {

enum ExitCode : int {
    kOk = 0,        // did what was asked
    kFailure = 1,   // runtime error: module not loaded, permission, I/O error, nothing found
    kUsage = 2,     // bad command line
    kProblems = 3,  // ran and found problems, or did it only in part: aoe-discover
                    // --probe advice, aoe-ddt bad sectors; aoe-cfg/aoe-mask/
                    // aoe-reserve: only some target ports did it; aoe-ping: some
                    // probes lost
    kRefused = 4,   // refused for safety: would destroy data in use (aoe-ddt)
};

// Exit code for an error escaping a tool: kUsage for UsageError and
// Boost.Program_options errors, kRefused for Refused, kFailure for
// everything else.
int exit_code_for(const std::exception& e);

// "aoe-stat (aoekit) 0.1.0"
std::string version_line(const std::string& tool);

// The usage-error lines: "aoe-x: <problem>\nTry 'aoe-x --help'.\n".
std::string usage_error_text(const std::string& tool, const std::string& problem);

class Tool {
public:
    // synopsis: what follows the tool name in "Usage: <tool> <synopsis>".
    Tool(std::string name, std::string synopsis, std::string summary);

    const std::string& name() const { return name_; }
    // Options shown in --help.
    boost::program_options::options_description& options() { return visible_; }
    // Options for positional arguments, not shown in --help.
    boost::program_options::options_description& hidden() { return hidden_; }
    boost::program_options::positional_options_description& positional() { return positional_; }
    int verbosity() const { return verbosity_; }
    // What parse() stored (for options without a bound variable).
    const boost::program_options::variables_map& vm() const { return vm_; }
    std::string help() const;

    enum class Parsed { run, help, version };
    // Parses args (without argv[0]) into vm() and the bound variables and
    // counts -v. Throws UsageError (Boost.Program_options' errors become
    // one) on a bad command line. Does not print.
    Parsed parse(const std::vector<std::string>& args);

    // parse(), then --help/--version print and return kOk; a usage error
    // prints the usage-error lines and returns kUsage; otherwise sets up
    // logging, runs body and maps what it throws to a message on stderr and
    // an exit code (exit_code_for).
    int run(int argc, char** argv, const std::function<int()>& body);

private:
    std::string name_;
    std::string synopsis_;
    std::string summary_;
    boost::program_options::options_description visible_;
    boost::program_options::options_description hidden_;
    boost::program_options::positional_options_description positional_;
    boost::program_options::variables_map vm_;
    int verbosity_ = 0;
};

}  // namespace aoe::cli
