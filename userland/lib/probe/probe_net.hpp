// aoe-discover --probe, the network part: local interfaces from rtnetlink
// (libnl-route-3), one AF_PACKET socket per interface (RAII), and the probe
// itself: a Query Config broadcast per interface, then per path ATA reads
// of sector 0 of growing size to find the largest payload that comes back.
// Reads only: the probe never writes to a target. Works whether or not the
// aoe module is loaded (tags have bit 31 set, see probe.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "probe/probe.hpp"

struct nl_cache;

namespace aoe::probe {

struct CacheDeleter {
    void operator()(nl_cache* c) const noexcept;
};
using CachePtr = std::unique_ptr<nl_cache, CacheDeleter>;

// Every network interface (name, index, MAC, MTU, up, Ethernet, enslaved).
// Throws NetlinkError when rtnetlink cannot be read.
std::vector<Interface> list_interfaces();

// A raw AF_PACKET socket bound to one interface for EtherType 0x88A2,
// non-blocking. Throws NeedsRawCapability when the kernel says EPERM or
// EACCES, ProbeError otherwise.
class PacketSocket {
public:
    explicit PacketSocket(const Interface& iface);
    ~PacketSocket();
    PacketSocket(PacketSocket&& o) noexcept;
    PacketSocket& operator=(PacketSocket&& o) noexcept;
    PacketSocket(const PacketSocket&) = delete;
    PacketSocket& operator=(const PacketSocket&) = delete;

    // Sends one frame out of the interface (padded to 60 bytes).
    void send(const uint8_t* frame, size_t len);
    // One received frame into buf (at most cap bytes), frames this host sent
    // skipped; nullopt when none is waiting. The length returned is the
    // frame's real length, which may exceed cap (then truncated).
    std::optional<size_t> receive(uint8_t* buf, size_t cap);
    int fd() const { return fd_; }
    const Interface& iface() const { return iface_; }

private:
    Interface iface_;
    int fd_ = -1;
};

struct Options {
    // Everything ends within this.
    std::chrono::milliseconds wait{5000};
    // How long to wait for Query Config answers (at most a third of wait).
    std::chrono::milliseconds discover{1000};
    // How long one read waits for its answer, and how often each size is tried.
    std::chrono::milliseconds probe_timeout{250};
    int tries = 3;
};

struct RunResult {
    std::vector<TargetResult> targets;
    uint64_t waited_ms = 0;
};

// Runs the probe on ifaces (opened first, so a missing CAP_NET_RAW is
// reported before anything is sent).
RunResult run(const std::vector<Interface>& ifaces, const Options& opts);

}  // namespace aoe::probe
