// Unit tests for the command-line helpers (userland/lib/core/cli.cpp): exit codes,
// --help/--version, -v counting, usage errors.
#include <doctest/doctest.h>

#include <vector>

#include "core/cli.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace po = boost::program_options;
using namespace aoe;

namespace {

// Runs a Tool on argv, returning its exit code; *verbosity gets -v's count.
int run_tool(std::vector<std::string> args, const std::function<int()>& body,
             int* verbosity = nullptr, std::string* positional = nullptr)
{
    cli::Tool tool("aoe-test", "[-r] [-v] [ARG]", "A tool for the tests.");
    std::string pos;
    bool r = false;
    tool.options().add_options()("raw,r", po::bool_switch(&r), "a switch");
    tool.hidden().add_options()("arg", po::value(&pos));
    tool.positional().add("arg", 1);
    std::vector<char*> argv;
    args.insert(args.begin(), "aoe-test");
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = tool.run(static_cast<int>(args.size()), argv.data(), [&] {
        if (verbosity)
            *verbosity = tool.verbosity();
        if (positional)
            *positional = pos;
        return body();
    });
    log::init("aoe-test", 0);  // the tests after this one log warnings only
    return rc;
}

}  // namespace

TEST_CASE("cli: exit codes")
{
    CHECK(cli::exit_code_for(ModuleNotLoaded()) == 1);
    CHECK(cli::exit_code_for(PermissionDenied("permission denied")) == 1);
    CHECK(cli::exit_code_for(NetlinkError("x", -1)) == 1);
    CHECK(cli::exit_code_for(ParseError("x")) == 1);
    CHECK(cli::exit_code_for(std::runtime_error("x")) == 1);
    CHECK(cli::exit_code_for(UsageError("x")) == 2);
    CHECK(cli::exit_code_for(Refused("x")) == 4);
    CHECK(cli::kProblems == 3);
    CHECK(cli::exit_code_for(po::unknown_option("--bogus")) == 2);
    CHECK(std::string(ModuleNotLoaded().what()) == "aoe module not loaded: run modprobe aoe");
}

TEST_CASE("cli: run maps what the body does to exit codes")
{
    CHECK(run_tool({}, [] { return 0; }) == 0);
    CHECK(run_tool({}, [] { return 1; }) == 1);
    CHECK(run_tool({}, []() -> int { throw ModuleNotLoaded(); }) == 1);
    CHECK(run_tool({}, []() -> int { throw UsageError("bad"); }) == 2);
    CHECK(run_tool({"--bogus"}, [] { return 0; }) == 2);
    CHECK(run_tool({"a", "b"}, [] { return 0; }) == 2);  // one positional only
    bool ran = false;
    CHECK(run_tool({"--help"}, [&] { ran = true; return 1; }) == 0);
    CHECK(run_tool({"--version"}, [&] { ran = true; return 1; }) == 0);
    CHECK(run_tool({"-V"}, [&] { ran = true; return 1; }) == 0);
    CHECK(run_tool({"-h"}, [&] { ran = true; return 1; }) == 0);
    CHECK_FALSE(ran);
    CHECK(run_tool({"-x"}, [] { return 0; }) == 2);
    CHECK(run_tool({"-rx"}, [] { return 0; }) == 2);
}

TEST_CASE("cli: -v counts")
{
    int v = -1;
    std::string pos;
    CHECK(run_tool({}, [] { return 0; }, &v) == 0);
    CHECK(v == 0);
    CHECK(run_tool({"-v"}, [] { return 0; }, &v) == 0);
    CHECK(v == 1);
    CHECK(run_tool({"-vv", "e1.2"}, [] { return 0; }, &v, &pos) == 0);
    CHECK(v == 2);
    CHECK(pos == "e1.2");
    CHECK(run_tool({"-v", "--verbose", "-v"}, [] { return 0; }, &v) == 0);
    CHECK(v == 3);
    // bundled with another short option, either side
    CHECK(run_tool({"-rvv"}, [] { return 0; }, &v) == 0);
    CHECK(v == 2);
    CHECK(run_tool({"-vr"}, [] { return 0; }, &v) == 0);
    CHECK(v == 1);
    CHECK(run_tool({"-vrv", "x"}, [] { return 0; }, &v, &pos) == 0);
    CHECK(v == 2);
    CHECK(pos == "x");
}

TEST_CASE("cli: parse stores, counts and turns bad input into UsageError")
{
    cli::Tool tool("aoe-test", "[-r] [-v]", "A tool for the tests.");
    tool.options().add_options()("raw,r", "a switch")("num,n", po::value<int>(), "a number");
    CHECK(tool.parse({"-rvv", "-n", "3"}) == cli::Tool::Parsed::run);
    CHECK(tool.verbosity() == 2);
    CHECK(tool.vm().count("raw") == 1);
    CHECK(tool.vm()["num"].as<int>() == 3);
    CHECK(tool.parse({}) == cli::Tool::Parsed::run);
    CHECK(tool.verbosity() == 0);
    CHECK(tool.vm().count("raw") == 0);
    CHECK(tool.parse({"-V"}) == cli::Tool::Parsed::version);
    CHECK(tool.parse({"-r", "--help"}) == cli::Tool::Parsed::help);
    CHECK_THROWS_AS(tool.parse({"-n", "x"}), UsageError);
    CHECK_THROWS_AS(tool.parse({"--nope"}), UsageError);
    CHECK_THROWS_AS(tool.parse({"stray"}), UsageError);
}

TEST_CASE("cli: the usage-error lines and the help's exit-status line")
{
    CHECK(cli::usage_error_text("aoe-x", "unrecognised option '--bogus'") ==
          "aoe-x: unrecognised option '--bogus'\nTry 'aoe-x --help'.\n");
    cli::Tool tool("aoe-x", "[-v]", "Summary.");
    std::string h = tool.help();
    CHECK(h.rfind("Usage: aoe-x [-v]\nSummary.\n", 0) == 0);
    CHECK(h.find("-V [ --version ]") != std::string::npos);
    CHECK(h.find("-h [ --help ]") != std::string::npos);
    CHECK(h.find("see aoe(4) EXIT STATUS") != std::string::npos);
}

TEST_CASE("cli: version line")
{
    CHECK(cli::version_line("aoe-stat") == std::string("aoe-stat (aoekit) ") + AOE_VERSION);
}
