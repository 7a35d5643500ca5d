// Unit tests for a whole aoe-ddt run on a file (userland/lib/ddt/ddt.cpp, engine.cpp).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "ddt/ddt.hpp"

using namespace aoe::ddt;
using aoe::UsageError;
namespace fs = std::filesystem;

namespace {

// Warnings only, like the tool without -v.
const bool quiet = (aoe::log::init("aoe-ddt", 0), true);

struct TempFile {
    std::string path;
    explicit TempFile(size_t size)
    {
        path = (fs::current_path() / ("ddt-run-" + std::to_string(getpid()))).string();
        std::ofstream(path, std::ios::binary) << std::string(size, 'x');
    }
    ~TempFile() { fs::remove(path); }
};

Config cfg_for(const std::string& path, Mode m)
{
    Config c;
    c.target = path;
    c.mode = m;
    c.progress = Progress::off;
    c.bs = 64 << 10;
    c.iodepth = 4;
    return c;
}

// O_DIRECT when the filesystem under the test's working directory has it.
bool direct_ok(const std::string& path)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

}  // namespace

TEST_CASE("ddt run: read, write and verify a file, sequential and random")
{
    TempFile f(8 << 20);
    for (bool random : {false, true}) {
        for (unsigned jobs : {1u, 3u}) {
            CAPTURE(random);
            CAPTURE(jobs);
            Config c = cfg_for(f.path, Mode::write);
            c.buffered = !direct_ok(f.path);
            c.random = random;
            c.jobs = jobs;
            Report w = run(c, false);
            REQUIRE(w.write);
            CHECK(w.write->bytes == 8u << 20);
            CHECK(w.write->ios == 128);
            CHECK(w.write->errors == 0);
            CHECK(w.write->lat.count() == 128);
            CHECK(w.write->slat.count() == 128);
            CHECK(w.write->clat.count() == 128);
            // total = submission + completion, each I/O: the means add up
            CHECK(w.write->lat.mean() ==
                  doctest::Approx(w.write->slat.mean() + w.write->clat.mean()).epsilon(0.001));
            CHECK(w.write->lat.max() >= w.write->clat.max());
            CHECK_FALSE(w.read);

            c.mode = Mode::read;
            Report r = run(c, false);
            REQUIRE(r.read);
            CHECK(r.read->bytes == 8u << 20);
            CHECK_FALSE(r.failed());

            c.mode = Mode::verify;
            c.run_id = 99;
            Report v = run(c, false);
            REQUIRE(v.verify);
            CHECK(v.verify->checked_sectors == (8u << 20) / 512);
            CHECK(v.verify->bad_sectors == 0);
            CHECK_FALSE(v.failed());
        }
    }
}

TEST_CASE("ddt run: a flipped byte is found with its LBA")
{
    TempFile f(4 << 20);
    Config c = cfg_for(f.path, Mode::verify);
    c.buffered = !direct_ok(f.path);
    c.run_id = 0x5eed;
    c.offset = 1 << 20;
    c.size = 2 << 20;
    REQUIRE_FALSE(run(c, false).failed());
    {
        std::fstream io(f.path, std::ios::in | std::ios::out | std::ios::binary);
        io.seekg((1 << 20) + 777 * 512 + 100);
        char ch = 0;
        io.get(ch);
        io.seekp((1 << 20) + 777 * 512 + 100);
        io.put(static_cast<char>(ch ^ 1));
    }
    c.mode = Mode::verify_only;
    c.random = true;
    Report r = run(c, false);
    REQUIRE(r.verify);
    CHECK(r.failed());
    CHECK(r.verify->bad_sectors == 1);
    CHECK(r.verify->first_bad_lba() == 2048u + 777u);
    REQUIRE(r.verify->bad.size() == 1);
    CHECK(r.verify->bad[0].what.find("byte 100") != std::string::npos);
    // The wrong run id: every sector is stale; the lowest ones are listed.
    c.run_id = 0x5eee;
    r = run(c, false);
    CHECK(r.verify->bad_sectors == (2u << 20) / 512);
    REQUIRE(r.verify->bad.size() == VerifyStats::kListed);
    for (size_t i = 0; i < VerifyStats::kListed; ++i)
        CHECK(r.verify->bad[i].lba == 2048u + i);
    CHECK(r.verify->bad[0].what.find("stale data from run 0x5eed") != std::string::npos);
}

TEST_CASE("ddt run: geometry errors are usage errors")
{
    TempFile f(1 << 20);
    Config c = cfg_for(f.path, Mode::read);
    c.size = 2 << 20;
    CHECK_THROWS_AS(run(c, false), UsageError);
    c = cfg_for(f.path, Mode::read);
    c.bs = 1000;
    CHECK_THROWS_AS(run(c, false), UsageError);
    c = cfg_for(f.path, Mode::read);
    c.offset = 1 << 20;
    CHECK_THROWS_AS(run(c, false), UsageError);
    c = cfg_for(f.path, Mode::read);
    c.offset = 100;
    CHECK_THROWS_AS(run(c, false), UsageError);
    c = cfg_for(f.path, Mode::read);
    c.jobs = 17;  // 16 blocks of 64 KiB
    CHECK_THROWS_AS(run(c, false), UsageError);
    c = cfg_for(f.path + ".none", Mode::read);
    CHECK_THROWS_AS(run(c, false), UsageError);
}

TEST_CASE("ddt run: -t is time-based and stops")
{
    TempFile f(1 << 20);
    Config c = cfg_for(f.path, Mode::read);
    c.buffered = !direct_ok(f.path);
    c.bs = 4096;
    c.time_limit = 0.3;
    Report r = run(c, false);
    REQUIRE(r.read);
    CHECK(r.read->seconds >= 0.29);
    CHECK(r.read->seconds < 2.0);
    CHECK(r.read->bytes > 0);
}
