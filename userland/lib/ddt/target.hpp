// aoe-ddt: the target (block device or file): geometry, opening, and the safety check
// that stops a write from destroying a disk that is in use.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::ddt {

// An owned file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& o) noexcept : fd_(o.release()) {}
    Fd& operator=(Fd&& o) noexcept;
    ~Fd();
    int get() const { return fd_; }
    int release()
    {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

struct TargetInfo {
    std::string path;
    bool is_block = false;
    dev_t rdev = 0;             // block devices only
    uint64_t size = 0;          // bytes
    unsigned logical_sector = 512;
};

// Stats path: a block device (size from BLKGETSIZE64, logical sector size from
// BLKSSZGET) or a regular file (512-byte sectors). Throws UsageError when it is
// missing or something else.
TargetInfo probe_target(const std::string& path);

// Opens the target for the run. direct: O_DIRECT (EINVAL from a filesystem without
// O_DIRECT becomes a UsageError that suggests --buffered).
Fd open_target(const TargetInfo& t, bool write, bool direct);

// Why writing to this block device would be destructive; empty when it is safe.
// Checks: mounted (itself or a partition), holders in sysfs (dm, md...), active swap,
// exclusive-open refused by the kernel, and libblkid filesystem/RAID/partition-table
// signatures.
std::vector<std::string> write_hazards(const TargetInfo& t);

// Pieces of write_hazards, exposed for tests.
// Mount points in mountinfo text whose device is major:minor.
std::vector<std::string> mounts_of(std::string_view mountinfo, unsigned major, unsigned minor);
// Entry names in a sysfs holders directory (empty if none or missing).
std::vector<std::string> holders_in(const std::string& dir);
// Filesystem / RAID / partition-table signatures libblkid finds in path (a file or
// device), e.g. "ext2 filesystem", "dos partition table".
std::vector<std::string> signatures(const std::string& path);

}  // namespace aoe::ddt
