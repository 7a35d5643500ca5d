// Command-line plumbing shared by the tools: Boost.Program_options with
// --help, --version ("aoe-<tool> (aoekit) <version>") and -v counting, and
// one mapping from errors to exit codes:
//   0 ok, 1 runtime error (module not loaded, permission, nothing found),
//   2 usage error.
#pragma once

#include <boost/program_options.hpp>

#include <exception>
#include <functional>
#include <string>

namespace aoe::cli {

enum ExitCode : int { kOk = 0, kFailure = 1, kUsage = 2 };

// Exit code for an error escaping a tool: kUsage for UsageError and
// Boost.Program_options errors, kFailure for everything else.
int exit_code_for(const std::exception& e);

// "aoe-stat (aoekit) 0.1.0"
std::string version_line(const std::string& tool);

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
    std::string help() const;

    // Parses argv (--help/--version print and return kOk; a usage error
    // prints a hint and returns kUsage), sets up logging, runs body and maps
    // what it throws to a message on stderr and an exit code.
    int run(int argc, char** argv, const std::function<int()>& body);

private:
    std::string name_;
    std::string synopsis_;
    std::string summary_;
    boost::program_options::options_description visible_;
    boost::program_options::options_description hidden_;
    boost::program_options::positional_options_description positional_;
    int verbosity_ = 0;
};

}  // namespace aoe::cli
