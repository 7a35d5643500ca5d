#include "ddt/target.hpp"

#include <blkid/blkid.h>
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

#include "ddt/errors.hpp"
#include "ddt/log.hpp"

namespace aoe::ddt {

namespace fs = std::filesystem;

Fd& Fd::operator=(Fd&& o) noexcept
{
    if (this != &o) {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

Fd::~Fd()
{
    if (fd_ >= 0)
        ::close(fd_);
}

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

std::vector<std::string> mounts_of(std::string_view mountinfo, unsigned major, unsigned minor)
{
    // mountinfo: "36 35 98:0 /mnt1 /mnt/parent rw ... - ext3 /dev/root rw"
    std::vector<std::string> out;
    std::istringstream in{std::string(mountinfo)};
    std::string line;
    const std::string want = fmt::format("{}:{}", major, minor);
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string id, parent, devno, root, mnt;
        if (!(f >> id >> parent >> devno >> root >> mnt))
            continue;
        if (devno == want)
            out.push_back(mnt);
    }
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

std::vector<std::string> write_hazards(const TargetInfo& t)
{
    std::vector<std::string> why;
    if (!t.is_block)
        return why;
    unsigned maj = major(t.rdev), min = minor(t.rdev);
    const std::string sys = fmt::format("/sys/dev/block/{}:{}", maj, min);
    std::error_code ec;
    const fs::path sysdir = fs::canonical(sys, ec);
    const std::string mountinfo = slurp("/proc/self/mountinfo");

    // The device itself, then its partitions (subdirectories with a "partition" file).
    std::vector<std::pair<std::string, std::pair<unsigned, unsigned>>> devs;
    devs.push_back({t.path, {maj, min}});
    if (!ec) {
        for (const auto& e : fs::directory_iterator(sysdir, ec)) {
            if (!fs::exists(e.path() / "partition"))
                continue;
            unsigned pmaj = 0, pmin = 0;
            if (std::sscanf(slurp((e.path() / "dev").string()).c_str(), "%u:%u", &pmaj,
                            &pmin) == 2)
                devs.push_back({"/dev/" + e.path().filename().string(), {pmaj, pmin}});
        }
    }
    for (const auto& [name, mm] : devs) {
        for (const auto& m : mounts_of(mountinfo, mm.first, mm.second))
            why.push_back(fmt::format("{} is mounted on {}", name, m));
        std::string hdir =
            fmt::format("/sys/dev/block/{}:{}/holders", mm.first, mm.second);
        for (const auto& h : holders_in(hdir))
            why.push_back(fmt::format("{} is held by {} (device mapper, md or similar)", name, h));
    }
    // Active swap: /proc/swaps lists device paths.
    {
        std::istringstream in(slurp("/proc/swaps"));
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::string dev = line.substr(0, line.find_first_of(" \t"));
            struct stat st {};
            if (::stat(dev.c_str(), &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == t.rdev)
                why.push_back(fmt::format("{} is in use as swap", t.path));
        }
    }
    // The kernel's own view: an exclusive open fails while anything claims the device.
    {
        Fd fd(::open(t.path.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
        if (!fd && errno == EBUSY && why.empty())
            why.push_back(fmt::format("{} is busy (exclusive open refused by the kernel)",
                                      t.path));
    }
    for (const auto& s : signatures(t.path))
        why.push_back(fmt::format("{} carries a {}", t.path, s));
    for (const auto& w : why)
        DDT_LOG(debug) << "hazard: " << w;
    return why;
}

}  // namespace aoe::ddt
