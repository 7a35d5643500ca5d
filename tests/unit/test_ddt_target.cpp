// Unit tests for aoe-ddt's target probing and safety pieces (userland/lib/ddt/target.cpp).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "ddt/target.hpp"

using namespace aoe::ddt;
using aoe::UsageError;
namespace fs = std::filesystem;

namespace {

struct TempFile {
    std::string path;
    explicit TempFile(size_t size)
    {
        path = (fs::current_path() / ("ddt-target-" + std::to_string(getpid()))).string();
        std::ofstream(path, std::ios::binary) << std::string(size, '\0');
    }
    ~TempFile() { fs::remove(path); }
};

}  // namespace

// Writes text to a file in the working directory; removed with the object.
struct TextFile {
    std::string path;
    TextFile(const std::string& name, const std::string& text)
        : path((fs::current_path() / (name + std::to_string(getpid()))).string())
    {
        std::ofstream(path) << text;
    }
    ~TextFile() { fs::remove(path); }
};

TEST_CASE("ddt target: mountinfo lines by device number (libmount)")
{
    TextFile mi("ddt-mountinfo-",
                "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
                "40 22 1:0 / /mnt/ram rw,relatime shared:20 - ext2 /dev/ram0 rw\n"
                "41 22 1:0 /sub /mnt/bind rw,relatime shared:20 - ext2 /dev/ram0 rw\n"
                "42 22 1:1 / /mnt/with\\040space rw - ext2 /dev/ram1 rw\n");
    CHECK(mounts_of(mi.path, makedev(1, 0)) == std::vector<std::string>{"/mnt/ram", "/mnt/bind"});
    // libmount unescapes what mountinfo escapes
    CHECK(mounts_of(mi.path, makedev(1, 1)) == std::vector<std::string>{"/mnt/with space"});
    CHECK(mounts_of(mi.path, makedev(1, 10)).empty());
    TextFile empty("ddt-mountinfo-empty-", "");
    CHECK(mounts_of(empty.path, makedev(1, 0)).empty());
    CHECK(mounts_of(empty.path + ".missing", makedev(1, 0)).empty());
}

TEST_CASE("ddt target: swaps by device number (libmount)")
{
    // Any block device node of this machine (only stat'ed, never opened).
    std::string node;
    struct stat st {};
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev", ec))
        if (::stat(e.path().c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
            node = e.path().string();
            break;
        }
    TextFile none("ddt-swaps-none-", "Filename\tType\tSize\tUsed\tPriority\n");
    CHECK(swaps_of(none.path, makedev(1, 0)).empty());
    if (node.empty())
        return;
    ::stat(node.c_str(), &st);
    TextFile sw("ddt-swaps-",
                "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" + node +
                    "                               partition\t1048572\t\t0\t\t-2\n"
                    "/swapfile                               file\t\t1048572\t\t0\t\t-3\n");
    CHECK(swaps_of(sw.path, st.st_rdev) == std::vector<std::string>{node});
    CHECK(swaps_of(sw.path, st.st_rdev + 1).empty());
}

TEST_CASE("ddt target: holders directory")
{
    auto dir = fs::current_path() / ("ddt-holders-" + std::to_string(getpid()));
    fs::create_directories(dir);
    CHECK(holders_in(dir.string()).empty());
    std::ofstream(dir / "dm-0") << "";
    CHECK(holders_in(dir.string()) == std::vector<std::string>{"dm-0"});
    fs::remove_all(dir);
    CHECK(holders_in(dir.string()).empty());
}

TEST_CASE("ddt target: libblkid finds a partition table, not zeros")
{
    TempFile f(4 << 20);
    CHECK(signatures(f.path).empty());
    {
        // An MBR with one Linux partition from sector 2048, 4096 sectors long.
        std::fstream io(f.path, std::ios::in | std::ios::out | std::ios::binary);
        unsigned char mbr[512] = {};
        unsigned char* p = mbr + 446;
        p[0] = 0x00;
        p[4] = 0x83;
        p[8] = 0x00; p[9] = 0x08;    // start LBA 2048 (little endian)
        p[12] = 0x00; p[13] = 0x10;  // 4096 sectors
        mbr[440] = 0x12; mbr[441] = 0x34;  // disk id
        mbr[510] = 0x55;
        mbr[511] = 0xaa;
        io.write(reinterpret_cast<char*>(mbr), sizeof mbr);
    }
    auto s = signatures(f.path);
    REQUIRE(s.size() == 1);
    CHECK(s[0] == "dos partition table");
}

TEST_CASE("ddt target: probing files")
{
    TempFile f(3 << 20);
    TargetInfo t = probe_target(f.path);
    CHECK_FALSE(t.is_block);
    CHECK(t.size == 3u << 20);
    CHECK(t.logical_sector == 512);
    // A file is never a write hazard (only block devices are checked).
    CHECK(write_hazards(t).empty());
    CHECK_THROWS_AS(probe_target(f.path + ".missing"), UsageError);
    CHECK_THROWS_AS(probe_target(fs::current_path().string()), UsageError);
    CHECK_THROWS_AS(probe_target("/dev/null"), UsageError);  // character device
    Fd fd = open_target(t, false, false);
    CHECK(fd);
}
