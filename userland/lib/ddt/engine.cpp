#include "ddt/engine.hpp"

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "ddt/order.hpp"
#include "ddt/pattern.hpp"

namespace aoe::ddt {

AioContext::AioContext(unsigned depth)
{
    int rc = io_setup(static_cast<int>(depth), &ctx_);
    if (rc < 0) {
        ctx_ = nullptr;
        throw Error(fmt::format(
            "io_setup({}) failed: {}{}", depth, std::strerror(-rc),
            rc == -EAGAIN ? " (raise /proc/sys/fs/aio-max-nr or lower --iodepth/--jobs)" : ""));
    }
}

AioContext::~AioContext()
{
    if (ctx_)
        io_destroy(ctx_);
}

AlignedBuffer::AlignedBuffer(size_t align, size_t size, bool hugepages) : size_(size)
{
    // Buffers of 2 MiB and more go on transparent huge pages where the kernel
    // allows it: a 1 MiB request is then one physically contiguous segment instead
    // of 256 pages, which the block layer would split (max_segments is often 254
    // for virtio, 128 for others).
    constexpr size_t kHuge = size_t{2} << 20;
    const bool huge = hugepages && size >= kHuge;
    void* p = nullptr;
    int rc = posix_memalign(&p, huge ? std::max(align, kHuge) : align, size);
    if (rc != 0)
        throw Error(fmt::format("cannot allocate {} bytes of I/O buffers: {}", size,
                                  std::strerror(rc)));
    p_.reset(static_cast<unsigned char*>(p));
    if (huge)
        madvise(p, size / kHuge * kHuge, MADV_HUGEPAGE);  // advice only: failure is fine
    std::memset(p, 0, size);  // fault everything in now, not during the run
}

uint64_t now_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

Job::Job(const JobSpec& spec, Control& ctl, JobProgress& progress)
    : spec_(spec), ctl_(ctl), progress_(progress), ctx_(spec.iodepth),
      mem_(spec.align, spec.bs * spec.iodepth, spec.hugepages), slots_(spec.iodepth)
{
    for (unsigned i = 0; i < spec_.iodepth; ++i)
        slots_[i].buf = mem_.data() + i * spec_.bs;
    if (spec_.write && !spec_.pattern) {
        // Plain writes: non-zero, non-repeating data, filled once.
        pattern_fill(mem_.data(), mem_.size() / kSector * kSector, spec_.seed, spec_.run_id);
    }
}

void Job::prep(Slot& s, uint64_t block)
{
    uint64_t off = spec_.start + block * spec_.bs;
    if (spec_.write) {
        if (spec_.pattern)
            pattern_fill(s.buf, spec_.bs, off / kSector, spec_.run_id);
        io_prep_pwrite(&s.cb, spec_.fd, s.buf, spec_.bs, static_cast<long long>(off));
    } else {
        io_prep_pread(&s.cb, spec_.fd, s.buf, spec_.bs, static_cast<long long>(off));
    }
    s.cb.data = &s;
    s.start_ns = now_ns();
}

void Job::complete(Slot& s, long res, uint64_t now)
{
    DirStats& st = result_.stats;
    uint64_t off = static_cast<uint64_t>(s.cb.u.c.offset);
    if (res != static_cast<long>(spec_.bs)) {
        ++st.errors;
        if (st.first_error.empty())
            st.first_error =
                res < 0 ? fmt::format("offset {}: {}", off, std::strerror(static_cast<int>(-res)))
                        : fmt::format("offset {}: short transfer, {} of {} bytes", off, res,
                                      spec_.bs);
        log::debug("I/O error at offset {}: res {}", off, res);
        if (!spec_.continue_on_error)
            ctl_.stop = true;
        return;
    }
    st.slat.add(s.issue_ns - s.start_ns);
    st.clat.add(now - s.issue_ns);
    st.lat.add(now - s.start_ns);
    if (spec_.lat_log)
        result_.lat_log.push_back({now, now - s.start_ns, off});
    st.bytes += spec_.bs;
    ++st.ios;
    if (spec_.pattern && !spec_.write) {
        VerifyStats& v = result_.verify;
        const uint64_t lba = off / kSector;
        for (size_t i = 0; i < spec_.bs / kSector; ++i) {
            const unsigned char* sector = s.buf + i * kSector;
            SectorCheck c = pattern_check_sector(sector, lba + i, spec_.run_id);
            if (c.status == SectorStatus::ok)
                continue;
            ++v.bad_sectors;
            if (v.would_list(lba + i))
                v.note(lba + i, describe(c, sector, lba + i, spec_.run_id));
        }
        v.checked_sectors += spec_.bs / kSector;
    }
}

JobResult Job::run()
{
    const BlockOrder order(spec_.nblocks, spec_.random, spec_.seed);
    const uint64_t n = spec_.nblocks;
    const uint64_t total = spec_.loop ? UINT64_MAX : std::min(spec_.max_ios, n);
    const unsigned depth = spec_.iodepth;
    std::vector<Slot*> free_slots;
    free_slots.reserve(depth);
    for (auto& s : slots_)
        free_slots.push_back(&s);
    std::vector<iocb*> batch;  // prepared, not yet submitted
    batch.reserve(depth);
    std::vector<io_event> events(depth);
    unsigned inflight = 0;
    uint64_t next = 0;
    bool stopping = false;
    uint64_t now = now_ns();

    // commit: io_submit the batch (several calls if the kernel takes only part of it);
    // each request's issue time is when io_submit returns, where fio starts clat.
    auto commit = [&] {
        size_t done = 0;
        while (done < batch.size()) {
            int rc = io_submit(ctx_.get(), static_cast<long>(batch.size() - done),
                               batch.data() + done);
            if (rc > 0) {
                now = now_ns();
                for (size_t k = done; k < done + static_cast<size_t>(rc); ++k)
                    static_cast<Slot*>(batch[k]->data)->issue_ns = now;
                done += static_cast<size_t>(rc);
                inflight += static_cast<unsigned>(rc);
            } else if (rc == -EINTR) {
                continue;
            } else if (rc == -EAGAIN || rc == 0) {
                if (inflight)
                    break;  // reap first, submit the rest afterwards
                struct timespec pause = {0, 1000000};
                nanosleep(&pause, nullptr);
            } else {
                // The first iocb of the rest was refused: fail it, go on.
                auto* s = static_cast<Slot*>(batch[done]->data);
                s->issue_ns = now = now_ns();
                complete(*s, rc, now);
                free_slots.push_back(s);
                ++done;
            }
        }
        result_.issued += done;
        batch.erase(batch.begin(), batch.begin() + static_cast<long>(done));
    };
    const size_t batch_n = std::max(1u, spec_.batch);
    const unsigned reap_max = std::clamp(spec_.reap_max, 1u, depth);
    auto should_stop = [&] {
        return ctl_.stop.load(std::memory_order_relaxed) ||
               (ctl_.deadline_ns && now >= ctl_.deadline_ns);
    };

    for (;;) {
        if (!stopping && should_stop())
            stopping = true;
        // queue: prepare a request for every free slot
        while (!stopping && !free_slots.empty() && next < total) {
            Slot* s = free_slots.back();
            free_slots.pop_back();
            uint64_t i = next++;
            prep(*s, order(i < n ? i : i % n));
            batch.push_back(&s->cb);
            if (batch.size() >= batch_n) {
                commit();
                if (ctl_.stop.load(std::memory_order_relaxed))
                    stopping = true;  // a refused iocb failed the run
            }
        }
        // Whatever is still prepared goes out before we wait (fio commits pending
        // requests in td_io_getevents too). After a stop it was never submitted:
        // give the slots back.
        if (!batch.empty() && stopping) {
            for (auto* cb : batch)
                free_slots.push_back(static_cast<Slot*>(cb->data));
            batch.clear();
        }
        if (!batch.empty())
            commit();
        if (inflight == 0) {
            if (batch.empty() && (stopping || next >= total))
                break;
            continue;
        }
        // getevents: at least one, as many as are ready; bounded wait so a stop
        // request is seen even when the device hangs.
        struct timespec tmo = {0, 200000000};
        int n = io_getevents(ctx_.get(), 1, static_cast<long>(reap_max), events.data(), &tmo);
        now = now_ns();
        if (n == -EINTR || n == 0)
            continue;
        if (n < 0)
            throw Error(fmt::format("io_getevents: {}", std::strerror(-n)));
        for (int i = 0; i < n; ++i) {
            auto* s = static_cast<Slot*>(events[i].data);
            complete(*s, static_cast<long>(events[i].res), now);
            free_slots.push_back(s);
        }
        inflight -= static_cast<unsigned>(n);
        progress_.bytes.store(result_.stats.bytes, std::memory_order_relaxed);
    }
    result_.end_ns = now_ns();
    return std::move(result_);
}

}  // namespace aoe::ddt
