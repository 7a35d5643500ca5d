// Unit tests for aoe-ddt's report formatting and JSON (userland/lib/ddt/report.cpp).
#include <doctest/doctest.h>

#include <string>

#include "ddt/report.hpp"

using namespace aoe::ddt;

namespace {

Report sample()
{
    Report r;
    r.target = "/dev/etherd/e1.2";
    r.mode = "read";
    r.bs = 1 << 20;
    r.iodepth = 8;
    r.jobs = 1;
    r.size = uint64_t{1} << 30;
    DirStats d;
    d.bytes = uint64_t{1} << 30;  // 1024 MiB
    d.ios = 1024;
    d.seconds = 9.8;
    for (int i = 0; i < 1000; ++i) {
        d.slat.add(1000000);     // 1 ms
        d.clat.add(8000000);
        d.lat.add(9000000);      // 9 ms
    }
    for (int i = 0; i < 24; ++i) {
        d.slat.add(1000000);
        d.clat.add(10200000);
        d.lat.add(11200000);     // 11.2 ms: the top 2.3 %
    }
    r.read = d;
    r.cpu.usr_pct = 1.2;
    r.cpu.sys_pct = 8.9;
    r.cpu.system.valid = true;
    r.cpu.system.busy_pct = 20;
    r.cpu.system.iowait_pct = 30;
    return r;
}

}  // namespace

TEST_CASE("ddt report: the first line is the one-glance summary")
{
    std::string s = format_text(sample());
    std::string first = s.substr(0, s.find('\n'));
    CHECK(first == "read: 1024 MiB in 9.8 s, 109.6 MB/s, 104 IOPS, p99 11.2 ms, cpu usr 1.2 % sys 8.9 %");
    CHECK(s.find("104.5 MiB/s") != std::string::npos);
    CHECK(s.find("iowait 30.0 %") != std::string::npos);
    CHECK(s.find("O_DIRECT I/O, ") != std::string::npos);
    CHECK(s.find("huge-page") == std::string::npos);
    CHECK(s.find("verify") == std::string::npos);
    CHECK(s.find("interrupted") == std::string::npos);
}

TEST_CASE("ddt report: buffered, interrupted and verify failures are said")
{
    Report r = sample();
    r.buffered = true;
    r.hugepages = true;
    r.interrupted = true;
    VerifyStats v;
    v.run_id = 0x42;
    v.checked_sectors = 2048;
    v.bad_sectors = 1;
    v.note(10241, "checksum mismatch");
    v.note(10300, "stale data");
    v.bad_sectors = 3;
    r.verify = v;
    std::string s = format_text(r);
    CHECK(s.find("buffered") != std::string::npos);
    CHECK(s.find("I/O on huge-page buffers") != std::string::npos);
    CHECK(s.find("interrupted: partial results") != std::string::npos);
    CHECK(s.find("verify: run id 0x42, 2048 sectors checked, 3 bad, first bad LBA 10241: checksum mismatch\n") != std::string::npos);
    CHECK(s.find("\n  bad LBA 10300: stale data\n  (1 more bad sectors not listed)\n") != std::string::npos);
    CHECK(s.find("  slat us: min 1000.0, avg 1000.0") != std::string::npos);
    CHECK(s.find("  clat us: min 8000.0") != std::string::npos);
    CHECK(s.find("   lat us: min 9000.0") != std::string::npos);
    CHECK(r.failed());
    auto j = to_json(r);
    // A string: JSON readers (jq, JavaScript) round 64-bit integers.
    CHECK(j["verify"]["run_id"] == "0x42");
    CHECK(j["verify"]["first_bad_lba"] == 10241);
    REQUIRE(j["verify"]["bad_lbas"].size() == 2);
    CHECK(j["verify"]["bad_lbas"][1]["lba"] == 10300);
    CHECK(j["verify"]["bad_lbas"][1]["found"] == "stale data");
}

TEST_CASE("ddt report: JSON keys and values")
{
    Report r = sample();
    auto j = to_json(r);
    REQUIRE(j.contains("read"));
    CHECK_FALSE(j.contains("write"));
    CHECK_FALSE(j.contains("verify"));
    const auto& rd = j["read"];
    CHECK(rd["bytes"] == uint64_t{1} << 30);
    CHECK(rd["seconds"].get<double>() == doctest::Approx(9.8));
    CHECK(rd["bw_bytes_per_s"].get<double>() == doctest::Approx(1073741824 / 9.8));
    CHECK(rd["iops"].get<double>() == doctest::Approx(1024 / 9.8));
    CHECK(rd["errors"] == 0);
    for (const char* h : {"slat_us", "clat_us", "lat_us"})
        for (const char* k : {"min", "mean", "p50", "p99", "p999", "max"})
            CHECK(rd[h].contains(k));
    CHECK(rd["slat_us"]["mean"].get<double>() == doctest::Approx(1000));
    CHECK(rd["lat_us"]["mean"].get<double>() ==
          doctest::Approx(rd["slat_us"]["mean"].get<double>() + rd["clat_us"]["mean"].get<double>()));
    CHECK(rd["first_error"].is_null());
    CHECK(rd["lat_us"]["min"].get<double>() == doctest::Approx(9000));
    CHECK(rd["lat_us"]["p50"].get<double>() == doctest::Approx(9000).epsilon(0.01));
    CHECK(rd["lat_us"]["max"].get<double>() == doctest::Approx(11200));
    CHECK(j["cpu"]["usr_pct"].get<double>() == doctest::Approx(1.2));
    CHECK(j["cpu"]["system"]["iowait_pct"].get<double>() == doctest::Approx(30));
    for (const char* k : {"busy_pct", "sys_pct", "softirq_pct", "irq_pct", "iowait_pct"})
        CHECK(j["cpu"]["system"].contains(k));
    CHECK(j["failed"] == false);
    CHECK(j["options"]["hugepages"] == false);
    CHECK(j["options"]["buffered"] == false);

    VerifyStats v;
    v.checked_sectors = 100;
    r.verify = v;
    j = to_json(r);
    CHECK(j["verify"]["checked_sectors"] == 100);
    CHECK(j["verify"]["bad_sectors"] == 0);
    CHECK(j["verify"]["first_bad_lba"].is_null());
}

TEST_CASE("ddt report: merging jobs adds counts and keeps the lowest bad LBA")
{
    DirStats a, b;
    a.bytes = 10;
    a.ios = 1;
    a.seconds = 2;
    b.bytes = 20;
    b.ios = 2;
    b.errors = 1;
    b.seconds = 3;
    b.first_error = "offset 0: Input/output error";
    a.merge(b);
    CHECK(a.bytes == 30);
    CHECK(a.ios == 3);
    CHECK(a.errors == 1);
    CHECK(a.seconds == 3);
    CHECK(a.first_error == b.first_error);

    VerifyStats x, y;
    x.bad_sectors = 1;
    x.note(500, "x");
    y.bad_sectors = 2;
    y.note(7, "y");
    y.note(9000, "z");
    x.merge(y);
    CHECK(x.bad_sectors == 3);
    CHECK(x.first_bad_lba() == 7u);
    REQUIRE(x.bad.size() == 3);
    CHECK(x.bad[0].what == "y");
    CHECK(x.bad[1].lba == 500);
    CHECK(x.bad[2].lba == 9000);
}

TEST_CASE("ddt report: the bad-LBA list keeps the lowest kListed")
{
    VerifyStats v;
    for (uint64_t lba = 1000; lba > 0; lba -= 10)
        v.note(lba, "bad");
    REQUIRE(v.bad.size() == VerifyStats::kListed);
    for (size_t i = 0; i < v.bad.size(); ++i)
        CHECK(v.bad[i].lba == 10 + 10 * i);
    CHECK_FALSE(v.would_list(5000));
    CHECK(v.would_list(1));
    v.note(10, "again");  // listed once
    CHECK(v.bad[0].what == "bad");
}
