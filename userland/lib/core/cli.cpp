#include "core/cli.hpp"

#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "core/error.hpp"
#include "core/log.hpp"

namespace po = boost::program_options;

namespace aoe::cli {

namespace {

// -v may be repeated (-v -v, -vv, --verbose --verbose): each one counts.
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
    return kFailure;
}

std::string version_line(const std::string& tool)
{
    return fmt::format("{} (aoekit) {}", tool, AOE_VERSION);
}

Tool::Tool(std::string name, std::string synopsis, std::string summary)
    : name_(std::move(name)),
      synopsis_(std::move(synopsis)),
      summary_(std::move(summary)),
      visible_("Options")
{
    visible_.add_options()
        ("help,h", "print this help and exit")
        ("version", "print the version and exit")
        ("verbose,v", po::value<Counter>()->zero_tokens()->composing(),
         "log more to stderr (-v info, -vv debug)");
}

std::string Tool::help() const
{
    std::ostringstream os;
    os << "Usage: " << name_ << ' ' << synopsis_ << '\n' << summary_ << "\n\n" << visible_;
    return os.str();
}

int Tool::run(int argc, char** argv, const std::function<int()>& body)
{
    try {
        po::options_description all;
        all.add(visible_).add(hidden_);
        po::variables_map vm;
        po::store(po::command_line_parser(argc, argv).options(all).positional(positional_).run(),
                  vm);
        if (vm.count("help")) {
            std::cout << help();
            return kOk;
        }
        if (vm.count("version")) {
            std::cout << version_line(name_) << '\n';
            return kOk;
        }
        po::notify(vm);
        if (vm.count("verbose"))
            verbosity_ = vm["verbose"].as<Counter>().n;
        log::init(name_, verbosity_);
        return body();
    } catch (const std::exception& e) {
        int code = exit_code_for(e);
        std::cerr << name_ << ": " << e.what() << '\n';
        if (code == kUsage)
            std::cerr << "Try '" << name_ << " --help' for more information.\n";
        return code;
    }
}

}  // namespace aoe::cli
