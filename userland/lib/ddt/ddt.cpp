#include "ddt/ddt.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <latch>
#include <memory>
#include <optional>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/term.hpp"
#include "core/json.hpp"
#include "ddt/cpu.hpp"
#include "ddt/engine.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "ddt/pattern.hpp"
#include "ddt/size.hpp"
#include "ddt/target.hpp"

namespace aoe::ddt {

namespace {

// Seed of the random block order (--random): fixed, so that every run reads
// the blocks in the same order, as fio's randrepeat=1.
constexpr uint64_t kOrderSeed = 0x5eed;

const char* mode_name(Mode m)
{
    switch (m) {
    case Mode::read:
        return "read";
    case Mode::write:
        return "write";
    case Mode::verify:
        return "verify";
    case Mode::verify_only:
        return "verify-only";
    }
    return "?";
}

// A live one-line progress display on stderr.
class ProgressLine {
public:
    ProgressLine(bool enabled, const char* dir, uint64_t total_bytes, double time_limit)
        : on_(enabled), dir_(dir), total_(total_bytes), limit_(time_limit) {}
    ~ProgressLine() { clear(); }

    void update(uint64_t bytes, double elapsed)
    {
        if (!on_)
            return;
        double now_rate = elapsed > last_t_ ? (bytes - last_b_) / (elapsed - last_t_) : 0;
        double avg = elapsed > 0 ? bytes / elapsed : 0;
        last_b_ = bytes;
        last_t_ = elapsed;
        double eta = avg > 0 ? (total_ - std::min(bytes, total_)) / avg : 0;
        if (limit_ > 0)
            eta = std::max(0.0, limit_ - elapsed);
        double pct = total_ ? 100.0 * bytes / total_ : 0.0;
        if (limit_ > 0)  // time-based: the run ends with the clock
            pct = 100.0 * std::min(elapsed / limit_, 1.0);
        std::string line = fmt::format(
            "{}: {:3.0f} % {}, {:.1f} MB/s now, {:.1f} MB/s avg, ETA {}:{:02}",
            dir_, pct, format_iec(bytes), now_rate / 1e6,
            avg / 1e6, static_cast<long>(std::ceil(eta)) / 60, static_cast<long>(std::ceil(eta)) % 60);
        // terminfo's clear-to-end-of-line; without one, blanks over the rest.
        const std::string& el = term::clear_to_eol(STDERR_FILENO);
        fmt::print(stderr, "\r{}{}", line,
                   el.empty() && line.size() < shown_len_
                       ? std::string(shown_len_ - line.size(), ' ')
                       : el);
        shown_len_ = line.size();
        std::fflush(stderr);
        shown_ = true;
    }
    void clear()
    {
        if (shown_) {
            const std::string& el = term::clear_to_eol(STDERR_FILENO);
            fmt::print(stderr, "\r{}", el.empty() ? std::string(shown_len_, ' ') + "\r" : el);
            shown_len_ = 0;
            std::fflush(stderr);
            shown_ = false;
        }
    }

private:
    bool on_;
    const char* dir_;
    uint64_t total_;
    double limit_;
    uint64_t last_b_ = 0;
    double last_t_ = 0;
    bool shown_ = false;
    size_t shown_len_ = 0;  // bytes of the line on screen
};

struct Plan {
    TargetInfo target;
    uint64_t size = 0;     // bytes covered (a multiple of bs)
    uint64_t nblocks = 0;
};

Plan plan(const Config& cfg)
{
    Plan p;
    p.target = probe_target(cfg.target);
    const auto& t = p.target;
    const unsigned lss = t.logical_sector;
    if (cfg.bs % lss)
        throw UsageError(fmt::format("--bs {} is not a multiple of the logical sector size {} of {}",
                                     cfg.bs, lss, t.path));
    if (cfg.mode == Mode::verify && cfg.bs % kSector)
        throw UsageError(fmt::format("--verify needs a block size that is a multiple of {}", kSector));
    if (cfg.offset % lss)
        throw UsageError(fmt::format("--offset {} is not a multiple of the logical sector size {} of {}",
                                     cfg.offset, lss, t.path));
    if (cfg.offset >= t.size)
        throw UsageError(fmt::format("--offset {} is at or beyond the end of {} ({} bytes)",
                                     cfg.offset, t.path, t.size));
    uint64_t avail = t.size - cfg.offset;
    if (cfg.size && *cfg.size > avail)
        throw UsageError(fmt::format("--size {} is larger than {}: it has {} bytes{}", *cfg.size,
                                     t.path, avail, cfg.offset ? " after --offset" : ""));
    uint64_t size = cfg.size.value_or(avail);
    p.nblocks = size / cfg.bs;
    if (p.nblocks == 0)
        throw UsageError(fmt::format("{} bytes of {} is less than one block of {}", size, t.path,
                                     cfg.bs));
    if (p.nblocks < cfg.jobs)
        throw UsageError(fmt::format("{} jobs need at least {} blocks, {} has {}", cfg.jobs,
                                     cfg.jobs, t.path, p.nblocks));
    p.size = p.nblocks * cfg.bs;
    if (p.size != size)
        log::info("size rounded down to a multiple of the block size: {}", p.size);
    return p;
}

// --lat-log: every I/O of a phase, in completion order, as fio's --write_lat_log
// _lat log ("msec, nsec, ddir, bs, offset": msec since the phase started, the
// total latency in ns, 0 read / 1 write), appended to the file run() created.
void append_lat_log(const std::string& path, const std::vector<JobResult>& results, bool write,
                    uint64_t bs, uint64_t t0)
{
    std::vector<LatSample> all;
    for (const auto& r : results)
        all.insert(all.end(), r.lat_log.begin(), r.lat_log.end());
    std::stable_sort(all.begin(), all.end(),
                     [](const LatSample& a, const LatSample& b) { return a.done_ns < b.done_ns; });
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "a"), std::fclose);
    if (!f)
        throw Error(fmt::format("--lat-log {}: {}", path, std::strerror(errno)));
    for (const auto& s : all)
        fmt::print(f.get(), "{}, {}, {}, {}, {}\n", (s.done_ns - t0) / 1000000, s.lat_ns,
                   write ? 1 : 0, bs, s.offset);
    if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
        throw Error(fmt::format("--lat-log {}: {}", path, std::strerror(errno)));
}

struct PhaseResult {
    DirStats stats;
    VerifyStats verify;
    std::vector<uint64_t> issued;  // per job
    bool interrupted = false;
};

// Waits for the jobs while showing progress and watching for SIGINT/SIGTERM.
// Jobs send SIGUSR1 to this thread when they finish, to wake it at once.
PhaseResult run_phase(const Config& cfg, const Plan& pl, int fd, bool write, bool pattern,
                      uint64_t run_id, const std::vector<uint64_t>& max_ios,
                      bool signals_blocked, double time_limit)
{
    const unsigned jobs = cfg.jobs;
    Control ctl;
    std::vector<JobProgress> progress(jobs);
    std::vector<std::unique_ptr<Job>> job;
    for (unsigned i = 0; i < jobs; ++i) {
        JobSpec s;
        s.fd = fd;
        s.write = write;
        s.pattern = pattern;
        s.run_id = run_id;
        uint64_t first = pl.nblocks * i / jobs, last = pl.nblocks * (i + 1) / jobs;
        s.start = cfg.offset + first * cfg.bs;
        s.nblocks = last - first;
        s.max_ios = max_ios.empty() ? s.nblocks : std::min(max_ios[i], s.nblocks);
        // -t: time-based like fio's time_based, except the write phase of --verify,
        // which writes every block once at most.
        s.loop = time_limit > 0 && !pattern;
        s.bs = cfg.bs;
        s.iodepth = cfg.iodepth;
        s.batch = std::min(cfg.batch, cfg.iodepth);
        s.reap_max = std::min(cfg.reap, cfg.iodepth);
        s.continue_on_error = cfg.continue_on_error;
        s.random = cfg.random;
        // The random order repeats from run to run, as fio's by default
        // (randrepeat=1), and is not the verify run id's: fio re-reads the
        // blocks its previous run read, which on cached media (a file on a
        // VM's disk image) made its IOPS up to 3x aoe-ddt's.
        s.seed = kOrderSeed * 31 + i;
        s.align = std::max<size_t>(4096, pl.target.logical_sector);
        s.hugepages = cfg.hugepages;
        s.lat_log = !cfg.lat_log.empty();
        job.push_back(std::make_unique<Job>(s, ctl, progress[i]));
    }
    bool tty = isatty(STDERR_FILENO);
    bool show = cfg.progress == Progress::on || (cfg.progress == Progress::automatic && tty && !cfg.json);
    uint64_t total = 0;
    for (auto m : max_ios)
        total += m * cfg.bs;
    ProgressLine line(show, write ? "write" : "read", max_ios.empty() ? pl.size : total,
                      time_limit);

    std::vector<JobResult> results(jobs);
    std::vector<std::string> failures(jobs);
    std::latch finished(jobs);
    pthread_t self = pthread_self();
    std::vector<std::thread> threads;
    const uint64_t t0 = now_ns();
    ctl.deadline_ns = time_limit > 0 ? t0 + static_cast<uint64_t>(time_limit * 1e9) : 0;
    for (unsigned i = 0; i < jobs; ++i) {
        threads.emplace_back([&, i] {
            try {
                results[i] = job[i]->run();
            } catch (const std::exception& e) {
                failures[i] = e.what();
                ctl.stop = true;
            }
            finished.count_down();
            if (signals_blocked)
                pthread_kill(self, SIGUSR1);
        });
    }
    PhaseResult pr;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);
    while (!finished.try_wait()) {
        if (signals_blocked) {
            timespec tmo = {show ? 0 : 1, show ? 500000000 : 0};
            int sig = sigtimedwait(&set, nullptr, &tmo);
            if ((sig == SIGINT || sig == SIGTERM) && !ctl.stop) {
                log::info("signal {}: stopping", sig);
                pr.interrupted = true;
                ctl.stop = true;
            }
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(show ? 500 : 20));
        }
        uint64_t done = 0;
        for (auto& p : progress)
            done += p.bytes.load(std::memory_order_relaxed);
        line.update(done, (now_ns() - t0) / 1e9);
    }
    for (auto& t : threads)
        t.join();
    line.clear();
    for (const auto& f : failures)
        if (!f.empty())
            throw Error(f);
    if (!cfg.lat_log.empty())
        append_lat_log(cfg.lat_log, results, write, cfg.bs, t0);
    for (unsigned i = 0; i < jobs; ++i) {
        results[i].stats.seconds = (results[i].end_ns - t0) / 1e9;
        pr.stats.merge(results[i].stats);
        pr.verify.merge(results[i].verify);
        pr.issued.push_back(results[i].issued);
    }
    return pr;
}

}  // namespace

Report run(const Config& cfg, bool signals_blocked)
{
    Plan pl = plan(cfg);
    const bool writes = cfg.mode == Mode::write || cfg.mode == Mode::verify;
    if (writes && pl.target.is_block) {
        if (pl.target.read_only)
            throw Error(fmt::format("{} is read-only (BLKROGET): nothing written. Make it "
                                    "writable (blockdev --setrw, a writable export) or only read it",
                                    pl.target.path));
        std::vector<std::string> in_use, sigs;
        for (const auto& h : write_hazards(pl.target))
            (h.kind == Hazard::Kind::in_use ? in_use : sigs).push_back(h.what);
        auto refuse = [&](const std::vector<std::string>& why, const char* what_to_do) {
            std::string msg = fmt::format("refusing to write to {}:", pl.target.path);
            for (size_t i = 0; i < why.size(); ++i)
                msg += (i ? "; " : " ") + why[i];
            throw Refused(msg + ". " + what_to_do);
        };
        // In use is another risk than an old signature: only its own flag overrides it.
        if (!in_use.empty() && !cfg.force_mounted)
            refuse(in_use, "Unmount/release it first (--force does not override this; "
                           "--force-mounted does, and destroys what is in use)");
        if (!sigs.empty() && !cfg.force && !cfg.force_mounted)
            refuse(sigs, "Wipe it (wipefs -a), or pass --force to destroy its contents");
        for (const auto& w : in_use)
            log::warning("--force-mounted: writing although {}", w);
        for (const auto& w : sigs)
            log::warning("--force: writing although {}", w);
    }
    Fd fd = open_target(pl.target, writes, !cfg.buffered);
    log::info("{} {} bytes at offset {} of {}, bs {}, iodepth {}, jobs {}{}", mode_name(cfg.mode),
              pl.size, cfg.offset, pl.target.path, cfg.bs, cfg.iodepth, cfg.jobs,
              cfg.buffered ? ", buffered" : ", O_DIRECT");

    Report r;
    r.target = pl.target.path;
    r.mode = mode_name(cfg.mode);
    r.random = cfg.random;
    r.bs = cfg.bs;
    r.iodepth = cfg.iodepth;
    r.jobs = cfg.jobs;
    r.offset = cfg.offset;
    r.size = pl.size;
    r.buffered = cfg.buffered;
    r.hugepages = cfg.hugepages;

    std::random_device rd;
    const uint64_t run_id =
        cfg.run_id.value_or((static_cast<uint64_t>(rd()) << 32 | rd()) ^ now_ns());
    if (!cfg.lat_log.empty()) {  // created empty now: a bad path fails before any I/O
        std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(cfg.lat_log.c_str(), "w"), std::fclose);
        if (!f)
            throw Error(fmt::format("--lat-log {}: {}", cfg.lat_log, std::strerror(errno)));
    }
    const CpuMeter cpu;
    const uint64_t t0 = now_ns();
    if (cfg.mode == Mode::read) {
        auto p = run_phase(cfg, pl, fd.get(), false, false, run_id, {}, signals_blocked,
                           cfg.time_limit);
        r.read = p.stats;
        r.interrupted = p.interrupted;
    } else if (cfg.mode == Mode::verify_only) {
        auto p = run_phase(cfg, pl, fd.get(), false, true, run_id, {}, signals_blocked,
                           cfg.time_limit);
        r.read = p.stats;
        r.interrupted = p.interrupted;
        r.verify = p.verify;
        r.verify->run_id = run_id;
    } else {
        bool verify = cfg.mode == Mode::verify;
        auto w = run_phase(cfg, pl, fd.get(), true, verify, run_id, {}, signals_blocked,
                           cfg.time_limit);
        r.write = w.stats;
        r.interrupted = w.interrupted;
        if (verify) {
            // Buffered: flush, and drop the cached pages so the reads reach the device.
            if (!cfg.buffered || (fdatasync(fd.get()) == 0 &&
                                  posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) == 0)) {
                // Read back exactly the blocks the write phase issued.
                VerifyStats v;
                if (!r.interrupted) {
                    auto rp = run_phase(cfg, pl, fd.get(), false, true, run_id, w.issued,
                                        signals_blocked, 0);
                    r.read = rp.stats;
                    r.interrupted = rp.interrupted;
                    v = rp.verify;
                }
                r.verify = v;
                r.verify->run_id = run_id;
            } else {
                throw Error(fmt::format("fdatasync {}: {}", pl.target.path, std::strerror(errno)));
            }
        }
    }
    r.cpu = cpu.finish((now_ns() - t0) / 1e9);
    return r;
}

int main(int argc, char** argv)
{
    auto tool = make_tool();
    return tool->run(argc, argv, [&] {
        Config cfg = config_from(*tool);
        // Signals are taken synchronously by the waiting thread; block them everywhere
        // before any worker thread exists.
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        Report r = run(cfg, true);
        if (cfg.json)
            std::cout << dump_json(to_json(r)) << "\n";
        else
            std::cout << format_text(r);
        std::cout.flush();
        for (const auto* d : {&r.write, &r.read})
            if (*d && (*d)->errors)
                std::cerr << fmt::format("aoe-ddt: {} I/O error{}{}, first: {}\n", (*d)->errors,
                                         (*d)->errors == 1 ? "" : "s",
                                         cfg.continue_on_error ? "" : " (stopped at the first; "
                                                                      "--continue-on-error goes on)",
                                         (*d)->first_error);
        if (r.verify && r.verify->bad_sectors) {
            const auto& v = *r.verify;
            std::cerr << fmt::format("aoe-ddt: verify failed: {} bad sectors, first bad LBA {}: {}\n",
                                     v.bad_sectors, v.bad.front().lba, v.bad.front().what);
            return cli::kProblems;
        }
        return r.failed() ? cli::kFailure : cli::kOk;
    });
}

}  // namespace aoe::ddt
