// Unit tests for aoe-ddt's command line (userland/lib/ddt/options.cpp).
#include <doctest/doctest.h>

#include "ddt/errors.hpp"
#include "ddt/options.hpp"

using namespace aoe::ddt;

TEST_CASE("ddt options: defaults")
{
    Config c = parse_args(std::vector<std::string>{"/dev/etherd/e1.2"});
    CHECK(c.target == "/dev/etherd/e1.2");
    CHECK(c.mode == Mode::read);
    CHECK(c.bs == 1048576);
    CHECK(c.iodepth == 8);
    CHECK(c.jobs == 1);
    CHECK_FALSE(c.size);
    CHECK(c.time_limit == 0);
    CHECK_FALSE(c.random);
    CHECK_FALSE(c.buffered);
    CHECK(c.progress == Progress::automatic);
    CHECK_FALSE(c.hugepages);
    CHECK(parse_args(std::vector<std::string>{"--hugepages", "f"}).hugepages);
    CHECK(parse_args(std::vector<std::string>{"--no-hugepages", "f"}).hugepages == false);
    CHECK_THROWS_AS(parse_args(std::vector<std::string>{"--hugepages", "--no-hugepages", "f"}),
                    UsageError);
}

TEST_CASE("ddt options: everything set")
{
    Config c = parse_args(std::vector<std::string>{
        "-w", "--random", "-b", "4k", "-q", "32", "-j", "4", "-s", "1G", "-t", "2.5",
        "--offset", "1M", "--json", "--no-progress", "-vv", "--force", "--buffered", "f"});
    CHECK(c.mode == Mode::write);
    CHECK(c.random);
    CHECK(c.bs == 4096);
    CHECK(c.iodepth == 32);
    CHECK(c.jobs == 4);
    CHECK(c.size == uint64_t{1} << 30);
    CHECK(c.time_limit == 2.5);
    CHECK(c.offset == 1048576);
    CHECK(c.json);
    CHECK(c.progress == Progress::off);
    CHECK(c.verbosity == 2);
    CHECK(c.force);
    CHECK(c.buffered);
    c = parse_args(std::vector<std::string>{"--verify-only", "--run-id", "0x10", "f"});
    CHECK(c.mode == Mode::verify_only);
    CHECK(c.run_id == 16u);
}

TEST_CASE("ddt options: bad input is a UsageError")
{
    using V = std::vector<std::string>;
    for (const V& v : {V{}, V{"a", "b"}, V{"-q", "0", "f"}, V{"-q", "99999", "f"},
                       V{"-q", "x", "f"}, V{"-j", "0", "f"}, V{"-b", "0", "f"},
                       V{"-b", "2G", "f"}, V{"-b", "1.5k", "f"}, V{"-s", "0", "f"},
                       V{"-t", "0", "f"}, V{"-t", "soon", "f"}, V{"-r", "-w", "f"},
                       V{"--verify", "--verify-only", "f"}, V{"--verify-only", "f"},
                       V{"-r", "--run-id", "1", "f"}, V{"--nope", "f"},
                       V{"--progress", "--no-progress", "f"}}) {
        CAPTURE(v.size());
        CHECK_THROWS_AS(parse_args(v), UsageError);
    }
}
