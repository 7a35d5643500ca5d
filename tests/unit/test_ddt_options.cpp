// Unit tests for aoe-ddt's command line (userland/lib/ddt/options.cpp).
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "ddt/options.hpp"

using namespace aoe::ddt;
using aoe::UsageError;

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
    CHECK(c.batch == 1);  // fio's iodepth_batch_submit default
    CHECK(c.reap == 1);   // fio's iodepth_batch_complete_max default (= _min, 1)
    CHECK_FALSE(c.force);
    CHECK_FALSE(c.force_mounted);
    CHECK_FALSE(c.continue_on_error);
    CHECK(c.lat_log.empty());
    CHECK(parse_args(std::vector<std::string>{"--lat-log", "/tmp/l", "f"}).lat_log == "/tmp/l");
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
    c = parse_args(std::vector<std::string>{"--force-mounted", "--continue-on-error",
                                            "--iodepth-batch", "4", "--iodepth-batch-complete-max",
                                            "32", "f"});
    CHECK(c.reap == 32);
    CHECK(c.force_mounted);
    CHECK_FALSE(c.force);
    CHECK(c.continue_on_error);
    CHECK(c.batch == 4);
}

TEST_CASE("ddt options: run ids round-trip as the hex strings the report prints")
{
    // 2^64 - 1 and a value a double cannot hold: JSON readers would round them
    for (uint64_t id : {uint64_t{0}, uint64_t{1}, uint64_t{0x600dcafe},
                        uint64_t{0x9f3c2b1a0e5d7c41}, ~uint64_t{0}}) {
        CAPTURE(id);
        CHECK(parse_run_id(format_run_id(id)) == id);
        Config c = parse_args(std::vector<std::string>{"--verify-only", "--run-id",
                                                       format_run_id(id), "f"});
        CHECK(c.run_id == id);
    }
    CHECK(format_run_id(0x42) == "0x42");
    CHECK(parse_run_id("66") == 66u);
    for (const char* bad : {"", "0x", "-1", "+1", "12z", "0x1p3", "18446744073709551616"})
        CHECK_FALSE(parse_run_id(bad));
}

TEST_CASE("ddt options: -v counts, also bundled with other short options")
{
    using V = std::vector<std::string>;
    CHECK(parse_args(V{"-rvv", "f"}).verbosity == 2);
    CHECK(parse_args(V{"-rvv", "f"}).mode == Mode::read);
    CHECK(parse_args(V{"-vr", "f"}).verbosity == 1);
    CHECK(parse_args(V{"-vw", "f"}).mode == Mode::write);
    CHECK(parse_args(V{"-v", "-w", "-vv", "f"}).verbosity == 3);
    CHECK(parse_args(V{"--verbose", "f"}).verbosity == 1);
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
