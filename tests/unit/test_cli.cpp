// Unit tests for the command-line helpers (userland/lib/core/cli.cpp): exit codes,
// --help/--version, -v counting, usage errors.
#include <doctest/doctest.h>

#include <vector>

#include "core/cli.hpp"
#include "core/error.hpp"

namespace po = boost::program_options;
using namespace aoe;

namespace {

// Runs a Tool on argv, returning its exit code; *verbosity gets -v's count.
int run_tool(std::vector<std::string> args, const std::function<int()>& body,
             int* verbosity = nullptr, std::string* positional = nullptr)
{
    cli::Tool tool("aoe-test", "[-v] [ARG]", "A tool for the tests.");
    std::string pos;
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
    CHECK_FALSE(ran);
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
}

TEST_CASE("cli: version line")
{
    CHECK(cli::version_line("aoe-stat") == std::string("aoe-stat (aoekit) ") + AOE_VERSION);
}
