// Sample sources for aoe-top: the aoe module over netlink, and a synthetic
// one for tests and the CPU benchmark.
#include <fmt/format.h>

#include <charconv>

#include "aoe_netlink.h"
#include "core/log.hpp"
#include "core/netlink.hpp"
#include "top/stats.hpp"

namespace aoe::top {

namespace {

class NetlinkSource : public Source {
public:
    Sample sample() override
    {
        Sample s;
        s.when = Clock::now();
        s.wall = WallClock::now();
        try {
            if (!client_)
                client_ = std::make_unique<Client>();
            s.info = client_->get_info();
            s.targets = client_->get_targets();
            s.when = Clock::now();
            s.wall = WallClock::now();
            if (!listener_) {
                try {
                    listener_ = std::make_unique<EventListener>();
                } catch (const Error& e) {
                    log::warning("no live events: {}", e.what());
                }
            }
        } catch (const ModuleNotLoaded& e) {
            drop(s, e.what());
        } catch (const NetlinkError& e) {
            // The module went away under us: start over on the next tick.
            drop(s, e.what());
        }
        return s;
    }

    int event_fd() override { return listener_ ? listener_->fd() : -1; }

    std::vector<Event> read_events() override
    {
        std::vector<Event> out;
        if (listener_)
            listener_->wait_events(Clock::now(), [&](const Event& e) {
                out.push_back(e);
                return true;
            });
        return out;
    }

private:
    void drop(Sample& s, const char* why)
    {
        s.module_loaded = false;
        s.error = why;
        listener_.reset();
        client_.reset();
    }

    std::unique_ptr<Client> client_;
    std::unique_ptr<EventListener> listener_;
};

}  // namespace

std::unique_ptr<Source> make_netlink_source()
{
    return std::make_unique<NetlinkSource>();
}

SyntheticSource::SyntheticSource(unsigned n, bool real_time)
    : n_(n), real_time_(real_time), start_(Clock::now())
{
}

Sample SyntheticSource::sample()
{
    Sample s;
    s.when = real_time_ ? Clock::now() : start_ + std::chrono::seconds(step_);
    // Not real time: a fixed clock from 2026-01-01T00:00:00Z, for golden output.
    s.wall = real_time_ ? WallClock::now()
                        : WallClock::time_point(std::chrono::seconds(1767225600 + step_));
    uint64_t k = step_++;
    s.info.version = "synthetic";
    s.info.interfaces = {{1, "a0", 9000, true}, {2, "b0", 1500, true}};
    for (unsigned i = 0; i < n_; ++i) {
        Target t;
        t.shelf = 1 + i / 16;
        t.slot = static_cast<uint8_t>(i % 16);
        t.device = device_name(t.shelf, t.slot);
        t.generation = 1;
        t.state = (i % 7 == 6) ? AOE_TARGET_STATE_DOWN : AOE_TARGET_STATE_UP;
        t.sectors = uint64_t{2097152} * (i + 1);
        t.payload = 8192;
        t.model = "synthetic disk";
        t.serial = fmt::format("SYN{:04}", i);
        t.firmware = "0x4019";
        t.config = "cfg";
        uint64_t rate = uint64_t{1} << (10 + i % 12);  // bytes per step
        Counters& c = t.counters;
        c.bytes_read = k * rate * 3;
        c.bytes_written = k * rate;
        c.read_reqs = k * 30;
        c.write_reqs = k * 10;
        c.retransmits = (i % 3 == 0) ? k * k : 0;
        c.timeouts = 0;
        c.lost = 0;
        for (uint32_t p = 0; p < 2; ++p) {
            Path path;
            path.ifindex = p + 1;
            path.ifname = p ? "b0" : "a0";
            path.mac = {0x02, 0, 0, static_cast<uint8_t>(i), 0, static_cast<uint8_t>(p)};
            path.state = AOE_PATH_STATE_UP;
            path.rtt_avg_us = 200 + 100 * p + i;
            path.rtt_dev_us = 20;
            path.rto_us = 1000;
            path.window = 16;
            path.outstanding = static_cast<uint32_t>(k % 16);
            path.payload = 8192;
            path.bufcnt = 16;
            path.counters.bytes_read = *c.bytes_read / 2;
            path.counters.bytes_written = *c.bytes_written / 2;
            path.counters.retransmits = *c.retransmits / 2;
            path.counters.lost = 0;
            t.paths.push_back(std::move(path));
        }
        t.outstanding = static_cast<uint32_t>(k % 32);
        s.targets.push_back(std::move(t));
    }
    return s;
}

std::unique_ptr<Source> make_source(const std::string& spec)
{
    if (spec == "netlink")
        return make_netlink_source();
    const std::string pre = "synthetic:";
    if (spec.starts_with(pre)) {
        unsigned n = 0;
        const char* b = spec.data() + pre.size();
        const char* e = spec.data() + spec.size();
        auto [ptr, ec] = std::from_chars(b, e, n);
        if (ec == std::errc() && ptr == e && n <= 4096)
            return std::make_unique<SyntheticSource>(n);
    }
    throw UsageError("bad --source '" + spec + "': use netlink or synthetic:N");
}

}  // namespace aoe::top
