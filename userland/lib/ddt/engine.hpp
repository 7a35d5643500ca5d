// aoe-ddt: the I/O engine. One job = one thread with its own libaio context, iodepth
// aligned buffers and a disjoint region of the target. The loop and the clocks are
// fio's libaio engine's (engines/libaio.c, io_u.c):
//   queue: prepare an iocb for a free slot and stamp its start (fio: get_io_u);
//          every `batch` prepared ones are committed (fio: iodepth_batch_submit)
//   commit: io_submit the prepared ones (several calls if the kernel takes part;
//          EAGAIN: reap first; EINTR: again) and stamp the issue time when it
//          returns (fio: fio_libaio_queued) -> slat = issue - start
//   getevents: when every slot is in flight (fio reaps when the queue is full),
//          what is still prepared goes out first, then io_getevents(1, reap_max)
//          (fio: iodepth_batch_complete_min 1, _max default 1: one at a time);
//          one timestamp for the batch -> clat = done - issue, lat = done - start
// A failed or short I/O is counted, not timed, and stops the job (and the run)
// unless continue_on_error, like fio's default continue_on_error=none.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <libaio.h>
#include <memory>
#include <string>
#include <vector>

#include "ddt/report.hpp"

namespace aoe::ddt {

// RAII around io_context_t.
class AioContext {
public:
    explicit AioContext(unsigned depth);
    AioContext(const AioContext&) = delete;
    AioContext& operator=(const AioContext&) = delete;
    ~AioContext();
    io_context_t get() const { return ctx_; }

private:
    io_context_t ctx_ = nullptr;
};

// RAII around a posix_memalign'ed buffer.
class AlignedBuffer {
public:
    // hugepages: 2 MiB alignment and MADV_HUGEPAGE when size is 2 MiB or more.
    AlignedBuffer(size_t align, size_t size, bool hugepages = false);
    unsigned char* data() const { return p_.get(); }
    size_t size() const { return size_; }

private:
    struct Free {
        void operator()(unsigned char* p) const { std::free(p); }
    };
    std::unique_ptr<unsigned char, Free> p_;
    size_t size_;
};

// Monotonic nanoseconds (CLOCK_MONOTONIC).
uint64_t now_ns();

// Shared between the jobs of one phase and whoever watches them.
struct Control {
    std::atomic<bool> stop{false};
    uint64_t deadline_ns = 0;  // now_ns() value to stop at; 0 = none
};

struct JobSpec {
    int fd = -1;
    bool write = false;
    bool pattern = false;      // verify: write the pattern / check it on read
    uint64_t run_id = 0;
    uint64_t start = 0;        // byte offset of the region
    uint64_t nblocks = 0;      // blocks in the region
    uint64_t max_ios = 0;      // stop after this many I/Os (<= nblocks)
    bool loop = false;         // time-based: start over at the end until stopped
    uint64_t bs = 0;
    unsigned iodepth = 1;
    unsigned batch = 1;        // io_submit every N prepared requests (the rest before
                               // waiting), fio's iodepth_batch_submit
    unsigned reap_max = 1;     // reap at most N completions per io_getevents, fio's
                               // iodepth_batch_complete_max
    bool continue_on_error = false;  // false: the first failed I/O stops the run
    bool random = false;
    uint64_t seed = 0;
    size_t align = 4096;
    bool hugepages = false;    // buffers on transparent huge pages
    bool lat_log = false;      // keep one LatSample per completed I/O (--lat-log)
};

// One completed I/O, as a line of fio's --write_lat_log _lat log.
struct LatSample {
    uint64_t done_ns;  // when it was reaped (now_ns())
    uint64_t lat_ns;   // total latency: preparation to reaping
    uint64_t offset;
};

struct JobResult {
    DirStats stats;
    VerifyStats verify;
    uint64_t issued = 0;       // I/Os submitted (the prefix of the block order covered)
    uint64_t end_ns = 0;
    std::vector<LatSample> lat_log;  // JobSpec::lat_log: every completed I/O
};

// Per-job live counter for the progress display.
struct alignas(64) JobProgress {
    std::atomic<uint64_t> bytes{0};
};

class Job {
public:
    // Allocates the context and buffers (throws aoe::Error). Cheap to run afterwards.
    Job(const JobSpec& spec, Control& ctl, JobProgress& progress);
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;
    // Runs to the end of the region, the deadline or a stop request.
    JobResult run();

private:
    struct Slot {
        iocb cb;
        unsigned char* buf;
        uint64_t start_ns;  // prepared
        uint64_t issue_ns;  // its io_submit returned
    };
    void prep(Slot& s, uint64_t block);
    void complete(Slot& s, long res, uint64_t now);

    JobSpec spec_;
    Control& ctl_;
    JobProgress& progress_;
    AioContext ctx_;
    AlignedBuffer mem_;
    std::vector<Slot> slots_;
    JobResult result_;
};

}  // namespace aoe::ddt
