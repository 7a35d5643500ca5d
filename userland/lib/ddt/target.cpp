#include "ddt/target.hpp"

#include <blkid/blkid.h>
#include <libmount/libmount.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"

namespace aoe::ddt {

namespace fs = std::filesystem;

TargetInfo probe_target(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw UsageError(fmt::format("{}: {}", path, std::strerror(errno)));
    TargetInfo t;
    t.path = path;
    if (S_ISREG(st.st_mode)) {
        t.size = static_cast<uint64_t>(st.st_size);
        return t;
    }
    if (!S_ISBLK(st.st_mode))
        throw UsageError(fmt::format("{}: not a block device or regular file", path));
    t.is_block = true;
    t.rdev = st.st_rdev;
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        throw UsageError(fmt::format("{}: {}", path, std::strerror(errno)));
    uint64_t bytes = 0;
    int lss = 0;
    if (::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0 || ::ioctl(fd.get(), BLKSSZGET, &lss) != 0)
        throw UsageError(fmt::format("{}: cannot read its size: {}", path, std::strerror(errno)));
    t.size = bytes;
    t.logical_sector = lss > 0 ? static_cast<unsigned>(lss) : 512;
    int ro = 0;
    if (::ioctl(fd.get(), BLKROGET, &ro) == 0)
        t.read_only = ro != 0;
    return t;
}

Fd open_target(const TargetInfo& t, bool write, bool direct)
{
    int flags = (write ? O_RDWR : O_RDONLY) | O_CLOEXEC;
    if (direct)
        flags |= O_DIRECT;
    Fd fd(::open(t.path.c_str(), flags));
    if (!fd) {
        int err = errno;
        if (direct && err == EINVAL)
            throw UsageError(fmt::format(
                "{}: O_DIRECT is not supported here (tmpfs?): use --buffered or another "
                "filesystem", t.path));
        throw UsageError(fmt::format("{}: {}", t.path, std::strerror(err)));
    }
    return fd;
}

namespace {

struct TableDeleter {
    void operator()(libmnt_table* t) const { mnt_unref_table(t); }
};
struct IterDeleter {
    void operator()(libmnt_iter* i) const { mnt_free_iter(i); }
};
using Table = std::unique_ptr<libmnt_table, TableDeleter>;

// Calls f for every entry of tb.
template <typename F>
void for_each_fs(libmnt_table* tb, F f)
{
    std::unique_ptr<libmnt_iter, IterDeleter> it(mnt_new_iter(MNT_ITER_FORWARD));
    if (!tb || !it)
        return;
    libmnt_fs* fs = nullptr;
    while (mnt_table_next_fs(tb, it.get(), &fs) == 0)
        f(fs);
}

}  // namespace

std::vector<std::string> mounts_of(const std::string& mountinfo_path, dev_t dev)
{
    std::vector<std::string> out;
    Table tb(mnt_new_table_from_file(mountinfo_path.c_str()));
    for_each_fs(tb.get(), [&](libmnt_fs* fs) {
        const char* target = mnt_fs_get_target(fs);
        if (mnt_fs_get_devno(fs) == dev && target)
            out.emplace_back(target);
    });
    return out;
}

std::vector<std::string> swaps_of(const std::string& swaps_path, dev_t dev)
{
    std::vector<std::string> out;
    Table tb(mnt_new_table());
    if (!tb || mnt_table_parse_swaps(tb.get(), swaps_path.c_str()) != 0)
        return out;
    for_each_fs(tb.get(), [&](libmnt_fs* fs) {
        const char* src = mnt_fs_get_srcpath(fs);
        struct stat st {};
        if (src && ::stat(src, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == dev)
            out.emplace_back(src);
    });
    return out;
}

std::vector<std::string> holders_in(const std::string& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        out.push_back(e.path().filename().string());
    return out;
}

namespace {

struct ProbeDeleter {
    void operator()(blkid_struct_probe* p) const { blkid_free_probe(p); }
};
using Probe = std::unique_ptr<blkid_struct_probe, ProbeDeleter>;

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string lookup(blkid_probe pr, const char* name)
{
    const char* v = nullptr;
    if (blkid_probe_lookup_value(pr, name, &v, nullptr) == 0 && v)
        return v;
    return {};
}

}  // namespace

std::vector<std::string> signatures(const std::string& path)
{
    std::vector<std::string> out;
    Probe pr(blkid_new_probe_from_filename(path.c_str()));
    if (!pr) {
        out.push_back(fmt::format("libblkid cannot probe it ({})", std::strerror(errno)));
        return out;
    }
    blkid_probe_enable_superblocks(pr.get(), 1);
    blkid_probe_set_superblocks_flags(pr.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
    blkid_probe_enable_partitions(pr.get(), 1);
    blkid_probe_set_partitions_flags(pr.get(), BLKID_PARTS_MAGIC);
    int rc = blkid_do_safeprobe(pr.get());
    if (rc == -2) {
        out.push_back("several conflicting signatures (libblkid: ambivalent probe)");
    } else if (rc == 0) {
        std::string type = lookup(pr.get(), "TYPE");
        std::string usage = lookup(pr.get(), "USAGE");
        std::string pttype = lookup(pr.get(), "PTTYPE");
        if (!type.empty())
            out.push_back(fmt::format("{} {} signature", type,
                                      usage.empty() ? "filesystem" : usage));
        if (!pttype.empty())
            out.push_back(fmt::format("{} partition table", pttype));
    } else if (rc < 0) {
        out.push_back("libblkid probe failed");
    }
    return out;
}

std::vector<Hazard> write_hazards(const TargetInfo& t)
{
    std::vector<Hazard> why;
    if (!t.is_block)
        return why;
    auto in_use = [&](std::string w) { why.push_back({Hazard::Kind::in_use, std::move(w)}); };
    unsigned maj = major(t.rdev), min = minor(t.rdev);
    const std::string sys = fmt::format("/sys/dev/block/{}:{}", maj, min);
    std::error_code ec;
    const fs::path sysdir = fs::canonical(sys, ec);

    // The device itself, then its partitions (subdirectories with a "partition" file).
    std::vector<std::pair<std::string, dev_t>> devs;
    devs.push_back({t.path, t.rdev});
    if (!ec) {
        for (const auto& e : fs::directory_iterator(sysdir, ec)) {
            if (!fs::exists(e.path() / "partition"))
                continue;
            unsigned pmaj = 0, pmin = 0;
            if (std::sscanf(slurp((e.path() / "dev").string()).c_str(), "%u:%u", &pmaj,
                            &pmin) == 2)
                devs.push_back({"/dev/" + e.path().filename().string(), makedev(pmaj, pmin)});
        }
    }
    for (const auto& [name, dev] : devs) {
        for (const auto& m : mounts_of("/proc/self/mountinfo", dev))
            in_use(fmt::format("{} is mounted on {}", name, m));
        std::string hdir = fmt::format("/sys/dev/block/{}:{}/holders", major(dev), minor(dev));
        for (const auto& h : holders_in(hdir))
            in_use(fmt::format("{} is held by {} (device mapper, md or similar)", name, h));
        if (!swaps_of("/proc/swaps", dev).empty())
            in_use(fmt::format("{} is in use as swap", name));
    }
    // The kernel's own view: an exclusive open fails while anything claims the device.
    {
        Fd fd(::open(t.path.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
        if (!fd && errno == EBUSY && why.empty())
            in_use(fmt::format("{} is busy (exclusive open refused by the kernel)", t.path));
    }
    for (const auto& s : signatures(t.path))
        why.push_back({Hazard::Kind::signature, fmt::format("{} carries a {}", t.path, s)});
    for (const auto& w : why)
        log::debug("hazard: {}", w.what);
    return why;
}

}  // namespace aoe::ddt
