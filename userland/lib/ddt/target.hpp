// aoe-ddt: the target (block device or file): geometry, opening, and the safety check
// that stops a write from destroying a disk that is in use.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/fd.hpp"

namespace aoe::ddt {

using aoe::Fd;

struct TargetInfo {
    std::string path;
    bool is_block = false;
    dev_t rdev = 0;             // block devices only
    uint64_t size = 0;          // bytes
    unsigned logical_sector = 512;
    bool read_only = false;     // BLKROGET (blockdev --setro, a read-only disk)
};

// Stats path: a block device (size from BLKGETSIZE64, logical sector size from
// BLKSSZGET, read-only from BLKROGET) or a regular file (512-byte sectors).
// Throws UsageError when it is missing or something else.
TargetInfo probe_target(const std::string& path);

// Opens the target for the run. direct: O_DIRECT (EINVAL from a filesystem without
// O_DIRECT becomes a UsageError that suggests --buffered).
Fd open_target(const TargetInfo& t, bool write, bool direct);

// Why writing to this block device would be destructive; empty when it is safe.
// in_use (needs --force-mounted): mounted (itself or a partition, from
// libmount), holders in sysfs (dm, md...), active swap (libmount), exclusive
// open refused by the kernel. signature (needs --force): libblkid
// filesystem/RAID/partition-table signatures.
struct Hazard {
    enum class Kind { in_use, signature };
    Kind kind;
    std::string what;
};
std::vector<Hazard> write_hazards(const TargetInfo& t);

// Pieces of write_hazards, exposed for tests.
// Mount points in a mountinfo (or fstab-like) file whose device is dev, via libmount.
std::vector<std::string> mounts_of(const std::string& mountinfo_path, dev_t dev);
// Entries of a swaps file (/proc/swaps) that are the block device dev, via libmount.
std::vector<std::string> swaps_of(const std::string& swaps_path, dev_t dev);
// Entry names in a sysfs holders directory (empty if none or missing).
std::vector<std::string> holders_in(const std::string& dir);
// Filesystem / RAID / partition-table signatures libblkid finds in path (a file or
// device), e.g. "ext2 filesystem", "dos partition table".
std::vector<std::string> signatures(const std::string& path);

}  // namespace aoe::ddt
