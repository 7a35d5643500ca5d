#include "probe/probe_net.hpp"

#include <fmt/format.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <random>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/netlink.hpp"

namespace aoe::probe {

using Clock = std::chrono::steady_clock;

void CacheDeleter::operator()(nl_cache* c) const noexcept
{
    nl_cache_free(c);
}

std::vector<Interface> list_interfaces()
{
    nl::SockPtr sk = nl::make_sock();
    int err = nl_connect(sk.get(), NETLINK_ROUTE);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot connect to rtnetlink", err), err);
    nl_cache* raw = nullptr;
    err = rtnl_link_alloc_cache(sk.get(), AF_UNSPEC, &raw);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot list the network interfaces", err), err);
    CachePtr cache(raw);

    std::vector<Interface> out;
    for (nl_object* o = nl_cache_get_first(cache.get()); o; o = nl_cache_get_next(o)) {
        auto* link = reinterpret_cast<rtnl_link*>(o);
        Interface i;
        const char* name = rtnl_link_get_name(link);
        i.name = name ? name : "";
        i.ifindex = rtnl_link_get_ifindex(link);
        i.mtu = rtnl_link_get_mtu(link);
        i.up = (rtnl_link_get_flags(link) & IFF_UP) != 0;
        i.carrier = rtnl_link_get_carrier(link) != 0;
        i.ethernet = rtnl_link_get_arptype(link) == ARPHRD_ETHER;
        i.enslaved = rtnl_link_get_master(link) != 0;
        nl_addr* a = rtnl_link_get_addr(link);
        if (a && nl_addr_get_len(a) == i.mac.size())
            std::memcpy(i.mac.data(), nl_addr_get_binary_addr(a), i.mac.size());
        else
            i.ethernet = false;
        out.push_back(std::move(i));
    }
    return out;
}

PacketSocket::PacketSocket(const Interface& iface) : iface_(iface)
{
    // Protocol 0 until bound: no frames from other interfaces in between.
    fd_ = ::socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
        if (errno == EPERM || errno == EACCES)
            throw NeedsRawCapability();
        throw ProbeError(fmt::format("cannot open a packet socket: {}", std::strerror(errno)));
    }
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(AOE_ETH_P);
    sll.sll_ifindex = iface.ifindex;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) < 0) {
        int e = errno;
        ::close(fd_);
        fd_ = -1;
        throw ProbeError(fmt::format("cannot bind a packet socket to {}: {}", iface.name,
                                     std::strerror(e)));
    }
}

PacketSocket::~PacketSocket()
{
    if (fd_ >= 0)
        ::close(fd_);
}

PacketSocket::PacketSocket(PacketSocket&& o) noexcept : iface_(std::move(o.iface_)), fd_(o.fd_)
{
    o.fd_ = -1;
}

PacketSocket& PacketSocket::operator=(PacketSocket&& o) noexcept
{
    if (this != &o) {
        if (fd_ >= 0)
            ::close(fd_);
        iface_ = std::move(o.iface_);
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

void PacketSocket::send(const uint8_t* frame, size_t len)
{
    std::array<uint8_t, AOE_ETH_ZLEN> pad{};
    if (len < pad.size()) {
        std::memcpy(pad.data(), frame, len);
        frame = pad.data();
        len = pad.size();
    }
    sockaddr_ll sll{};
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(AOE_ETH_P);
    sll.sll_ifindex = iface_.ifindex;
    sll.sll_halen = AOE_ETH_ALEN;
    std::memcpy(sll.sll_addr, frame, AOE_ETH_ALEN);
    ssize_t n = ::sendto(fd_, frame, len, 0, reinterpret_cast<sockaddr*>(&sll), sizeof(sll));
    if (n < 0) {
        if (errno == EPERM || errno == EACCES)
            throw NeedsRawCapability();
        throw ProbeError(fmt::format("cannot send on {}: {}", iface_.name, std::strerror(errno)));
    }
}

std::optional<size_t> PacketSocket::receive(uint8_t* buf, size_t cap)
{
    for (;;) {
        sockaddr_ll from{};
        socklen_t fl = sizeof(from);
        ssize_t n = ::recvfrom(fd_, buf, cap, MSG_TRUNC, reinterpret_cast<sockaddr*>(&from), &fl);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return std::nullopt;
            throw ProbeError(
                fmt::format("cannot receive on {}: {}", iface_.name, std::strerror(errno)));
        }
        if (from.sll_pkttype == PACKET_OUTGOING)
            continue;
        return static_cast<size_t>(n);
    }
}

namespace {

constexpr size_t kFrameMax = 65536;
constexpr uint32_t kMaxProbeSectors = (kFrameMax - AOE_ATA_HDR_LEN) / AOE_SECTOR_SIZE;

int ms_until(Clock::time_point t)
{
    auto d = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
    return d <= 0 ? 0 : static_cast<int>(std::min<long long>(d, 1000 * 1000));
}

struct Exchange {
    Match match = Match::other;  // other: nothing came back in time
    aoe_frame frame{};
    std::chrono::microseconds rtt{};
};

class Prober {
public:
    Prober(const std::vector<Interface>& ifaces, const Options& opts)
        : opts_(opts), start_(Clock::now()), deadline_(start_ + opts.wait), buf_(kFrameMax)
    {
        for (const auto& i : ifaces)
            socks_.emplace_back(i);
        std::random_device rd;
        tags_.emplace(rd());
    }

    RunResult run()
    {
        auto answers = discover();
        std::vector<Interface> ifaces;
        for (const auto& s : socks_)
            ifaces.push_back(s.iface());
        RunResult r;
        r.targets = group_answers(answers, ifaces);
        for (auto& t : r.targets)
            for (auto& p : t.paths)
                measure(t, p);
        r.waited_ms = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count());
        return r;
    }

private:
    // A Query Config broadcast on every interface; answers until the
    // discovery window closes.
    std::vector<ConfigAnswer> discover()
    {
        std::vector<Request> reqs;
        std::array<uint8_t, AOE_CFG_HDR_LEN> frame{};
        const uint8_t bcast[AOE_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        for (auto& s : socks_) {
            Request req;
            req.tag = tags_->next();
            req.cmd = AOE_CMD_CFG;
            req.broadcast = true;
            size_t len = aoe_encode_qc(frame.data(), bcast, s.iface().mac.data(), AOE_SHELF_ANY,
                                       AOE_SLOT_ANY, req.tag);
            s.send(frame.data(), len);
            log::info("Query Config broadcast on {} (tag {:#010x})", s.iface().name, req.tag);
            reqs.push_back(req);
        }
        auto window = std::min(opts_.discover, opts_.wait / 3);
        auto until = start_ + window;
        std::vector<ConfigAnswer> out;
        std::vector<pollfd> pfds;
        for (const auto& s : socks_)
            pfds.push_back({s.fd(), POLLIN, 0});
        for (;;) {
            int timeout = ms_until(until);
            int n = ::poll(pfds.data(), pfds.size(), timeout);
            if (n < 0 && errno != EINTR)
                throw ProbeError(fmt::format("poll failed: {}", std::strerror(errno)));
            for (size_t i = 0; n > 0 && i < socks_.size(); i++) {
                if (!(pfds[i].revents & POLLIN))
                    continue;
                while (auto len = socks_[i].receive(buf_.data(), buf_.size())) {
                    aoe_frame f{};
                    size_t have = std::min(*len, buf_.size());
                    if (match_response(buf_.data(), have, reqs[i], f) != Match::answer)
                        continue;
                    ConfigAnswer a;
                    a.shelf = f.shelf;
                    a.slot = f.slot;
                    std::copy(std::begin(f.src), std::end(f.src), a.mac.begin());
                    a.ifname = socks_[i].iface().name;
                    a.bufcnt = f.cfg.bufcnt;
                    a.fwver = f.cfg.fwver;
                    a.maxsect = f.cfg.maxsect;
                    a.aoever = f.cfg.aoever;
                    a.config.assign(reinterpret_cast<const char*>(f.cfg.cfg), f.cfg.cfglen);
                    log::info("e{}.{} answered on {} from {}", a.shelf, a.slot, a.ifname,
                              format_mac(a.mac));
                    out.push_back(std::move(a));
                }
            }
            if (timeout == 0)
                break;
        }
        return out;
    }

    PacketSocket& sock_for(const std::string& ifname)
    {
        for (auto& s : socks_)
            if (s.iface().name == ifname)
                return s;
        throw ProbeError(fmt::format("no socket for {}", ifname));
    }

    // Sends one ATA request and waits for its answer (bounded by the probe
    // timeout and the deadline).
    Exchange ata(PacketSocket& s, const TargetResult& t, const PathResult& p, uint8_t ata_cmd,
                 uint8_t sectors)
    {
        Request req;
        req.tag = tags_->next();
        req.cmd = AOE_CMD_ATA;
        req.shelf = t.shelf;
        req.slot = t.slot;
        req.mac = p.mac;
        req.sectors = sectors;
        std::array<uint8_t, AOE_ATA_HDR_LEN> frame{};
        // 28-bit READ SECTORS / IDENTIFY of sector 0: every ATA target has it.
        size_t len = aoe_encode_ata(frame.data(), p.mac.data(), s.iface().mac.data(), t.shelf,
                                    t.slot, req.tag, ata_cmd, false, false, 0, sectors);
        auto sent = Clock::now();
        auto until = std::min(deadline_, sent + opts_.probe_timeout);
        s.send(frame.data(), len);
        Exchange x;
        pollfd pfd{s.fd(), POLLIN, 0};
        for (;;) {
            while (auto n = s.receive(buf_.data(), buf_.size())) {
                if (*n > buf_.size())
                    continue;  // longer than any answer we asked for
                Match m = match_response(buf_.data(), *n, req, x.frame);
                if (m == Match::other)
                    continue;
                x.match = m;
                x.rtt = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - sent);
                return x;
            }
            int timeout = ms_until(until);
            if (timeout == 0)
                break;
            if (::poll(&pfd, 1, timeout) < 0 && errno != EINTR)
                throw ProbeError(fmt::format("poll failed: {}", std::strerror(errno)));
        }
        x.match = Match::other;
        return x;
    }

    // Reads of 1, 2, ... sectors up to what the path promises; the largest
    // size that comes back is its payload.
    void measure(TargetResult& t, PathResult& p)
    {
        uint32_t max_n = std::min(p.payload_expected / AOE_SECTOR_SIZE, kMaxProbeSectors);
        if (max_n == 0) {
            p.outcome = Outcome::no_room;
            return;
        }
        PacketSocket& s = sock_for(p.ifname);
        uint32_t best = 0;
        for (uint32_t n = 1; n <= max_n; n++) {
            bool got = false;
            for (int attempt = 0; attempt < opts_.tries && !got; attempt++) {
                if (Clock::now() >= deadline_) {
                    p.outcome = Outcome::timed_out;
                    p.payload = best * AOE_SECTOR_SIZE;
                    return;
                }
                Exchange x = ata(s, t, p, ATA_CMD_READ28, static_cast<uint8_t>(n));
                p.probes_sent++;
                log::debug("{} {} -> {}: read of {} sectors: {}", t.device(), p.ifname,
                           format_mac(p.mac), n,
                           x.match == Match::answer     ? "answered"
                           : x.match == Match::other    ? "no answer"
                           : x.match == Match::ata_error ? "ATA error"
                                                        : "short data");
                if (x.match == Match::ata_error) {
                    p.outcome = Outcome::ata_error;
                    p.ata_status = x.frame.ata.status;
                    p.ata_err = x.frame.ata.err;
                    p.payload = best * AOE_SECTOR_SIZE;
                    return;
                }
                if (x.match == Match::answer) {
                    got = true;
                    if (n == 1)
                        p.rtt_us = static_cast<uint32_t>(x.rtt.count());
                }
            }
            if (!got) {
                p.outcome = best ? Outcome::dropped : Outcome::no_reply;
                p.payload = best * AOE_SECTOR_SIZE;
                return;
            }
            best = n;
        }
        p.outcome = Outcome::ok;
        p.payload = best * AOE_SECTOR_SIZE;
        if (!t.sectors)
            identify(s, t, p);
    }

    // The capacity, from an ATA IDENTIFY DEVICE (nice to have: nothing
    // depends on it).
    void identify(PacketSocket& s, TargetResult& t, const PathResult& p)
    {
        for (int attempt = 0; attempt < 2 && Clock::now() < deadline_; attempt++) {
            Exchange x = ata(s, t, p, ATA_CMD_IDENTIFY, 1);
            if (x.match == Match::ata_error)
                return;
            if (x.match != Match::answer)
                continue;
            aoe_identity id{};
            if (aoe_parse_identify(buf_.data() + AOE_ATA_HDR_LEN, &id) == 0) {
                t.sectors = id.sectors;
                t.model = id.model;
            }
            return;
        }
    }

    Options opts_;
    Clock::time_point start_;
    Clock::time_point deadline_;
    std::vector<uint8_t> buf_;
    std::vector<PacketSocket> socks_;
    std::optional<TagSource> tags_;
};

}  // namespace

RunResult run(const std::vector<Interface>& ifaces, const Options& opts)
{
    Prober p(ifaces, opts);
    return p.run();
}

}  // namespace aoe::probe
