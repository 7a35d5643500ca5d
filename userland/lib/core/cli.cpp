#include "core/cli.hpp"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "core/log.hpp"

namespace po = boost::program_options;

namespace aoe::cli {

namespace {

// -v may be repeated (-v -v, -vv, -rvv, --verbose --verbose): each one counts.
struct Counter {
    int n = 0;
};

// Found by argument-dependent lookup from Boost.Program_options.
void validate(boost::any& v, const std::vector<std::string>&, Counter*, int)
{
    if (v.empty())
        v = Counter{1};
    else
        ++boost::any_cast<Counter&>(v).n;
}

}  // namespace

int exit_code_for(const std::exception& e)
{
    if (dynamic_cast<const UsageError*>(&e) || dynamic_cast<const po::error*>(&e))
        return kUsage;
    if (dynamic_cast<const Refused*>(&e))
        return kRefused;
    return kFailure;
}

std::string version_line(const std::string& tool)
{
    return fmt::format("{} (aoekit) {}", tool, AOE_VERSION);
}

std::string usage_error_text(const std::string& tool, const std::string& problem)
{
    return fmt::format("{}: {}\nTry '{} --help'.\n", tool, problem, tool);
}

Tool::Tool(std::string name, std::string synopsis, std::string summary)
    : name_(std::move(name)),
      synopsis_(std::move(synopsis)),
      summary_(std::move(summary)),
      visible_("Options")
{
    visible_.add_options()
        ("help,h", "print this help and exit")
        ("version,V", "print the version and exit")
        ("verbose,v", po::value<Counter>()->zero_tokens()->composing(),
         "log more to stderr (-v info, -vv debug)");
}

std::string Tool::help() const
{
    std::ostringstream os;
    os << "Usage: " << name_ << ' ' << synopsis_ << '\n' << summary_ << "\n\n" << visible_
       << "\nExit status: 0 ok, 1 error, 2 usage error (see aoe(4) EXIT STATUS).\n";
    return os.str();
}

Tool::Parsed Tool::parse(const std::vector<std::string>& args)
{
    try {
        po::options_description all;
        all.add(visible_).add(hidden_);
        vm_.clear();
        po::store(po::command_line_parser(args)
                      .options(all)
                      .positional(positional_)
                      .style(po::command_line_style::unix_style)
                      .run(),
                  vm_);
        if (vm_.count("help"))
            return Parsed::help;
        if (vm_.count("version"))
            return Parsed::version;
        po::notify(vm_);
        verbosity_ = vm_.count("verbose") ? vm_["verbose"].as<Counter>().n : 0;
        return Parsed::run;
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
}

int Tool::run(int argc, char** argv, const std::function<int()>& body)
{
    try {
        std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
        switch (parse(args)) {
        case Parsed::help:
            std::cout << help();
            return kOk;
        case Parsed::version:
            std::cout << version_line(name_) << '\n';
            return kOk;
        case Parsed::run:
            break;
        }
        log::init(name_, verbosity_);
        return body();
    } catch (const std::exception& e) {
        int code = exit_code_for(e);
        if (code == kUsage)
            std::cerr << usage_error_text(name_, e.what());
        else
            std::cerr << name_ << ": " << e.what() << '\n';
        return code;
    }
}

}  // namespace aoe::cli
