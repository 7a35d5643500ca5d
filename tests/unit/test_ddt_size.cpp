// Unit tests for aoe-ddt's size parsing and printing (userland/lib/ddt/size.cpp).
#include <doctest/doctest.h>

#include "ddt/size.hpp"

using namespace aoe::ddt;

TEST_CASE("ddt size: suffixes are powers of 1024")
{
    CHECK(parse_size("0") == 0u);
    CHECK(parse_size("512") == 512u);
    CHECK(parse_size("4k") == 4096u);
    CHECK(parse_size("4K") == 4096u);
    CHECK(parse_size("4KiB") == 4096u);
    CHECK(parse_size("1M") == 1048576u);
    CHECK(parse_size("1mb") == 1048576u);
    CHECK(parse_size("2G") == 2147483648u);
    CHECK(parse_size("1T") == (uint64_t{1} << 40));
    CHECK(parse_size("100b") == 100u);
}

TEST_CASE("ddt size: garbage, fractions and overflow are rejected")
{
    CHECK_FALSE(parse_size(""));
    CHECK_FALSE(parse_size("k"));
    CHECK_FALSE(parse_size("-1"));
    CHECK_FALSE(parse_size("1.5M"));
    CHECK_FALSE(parse_size("4x"));
    CHECK_FALSE(parse_size("4 k"));
    CHECK_FALSE(parse_size("1M1"));
    CHECK_FALSE(parse_size("16777216T"));           // 2^64: overflow
    CHECK_FALSE(parse_size("99999999999999999999"));  // > uint64
    CHECK(parse_size("16777215T") == (uint64_t{16777215} << 40));
}

TEST_CASE("ddt size: printing")
{
    CHECK(format_iec(512) == "512 B");
    CHECK(format_iec(4096) == "4 KiB");
    CHECK(format_iec(1 << 20) == "1 MiB");
    CHECK(format_iec(1073741824) == "1 GiB");
    CHECK(format_iec(1536 << 20) == "1.5 GiB");
    CHECK(format_mib(uint64_t{1} << 30) == "1024 MiB");
    CHECK(format_mib(512 << 10) == "0.5 MiB");
    CHECK(format_usec(850) == "850 us");
    CHECK(format_usec(11200) == "11.2 ms");
    CHECK(format_usec(1234567) == "1.23 s");
}
