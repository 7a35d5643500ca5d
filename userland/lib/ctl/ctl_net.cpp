#include "ctl/ctl_net.hpp"

#include <fmt/format.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <poll.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

#include "aoe_netlink.h"
#include "core/error.hpp"
#include "core/log.hpp"
#include "probe/probe_net.hpp"

namespace aoe::ctl {

namespace {

using Clock = std::chrono::steady_clock;
// The module gives up at the request's timeout; its results follow at once.
constexpr std::chrono::milliseconds kModuleSlack{2000};
constexpr std::chrono::milliseconds kRetry{AOE_CTL_RETRY_MS};
constexpr std::chrono::milliseconds kDiscover{700};

int ms_until(Clock::time_point t)
{
    auto d = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
    return d <= 0 ? 0 : static_cast<int>(std::min<long long>(d, 60 * 1000));
}

int resolve(nl_sock* sk)
{
    int err = genl_connect(sk);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot connect a generic netlink socket", err), err);
    int family = genl_ctrl_resolve(sk, AOE_GENL_NAME);
    if (family == -NLE_OBJ_NOTFOUND)
        throw ModuleNotLoaded();
    if (family < 0)
        throw NetlinkError(nl::error_text("cannot resolve generic netlink family \"aoe\"", family),
                           family);
    return family;
}

uint32_t random_u32()
{
    std::random_device rd;
    return rd();
}

}  // namespace

bool module_loaded()
{
    try {
        nl::SockPtr sk = nl::make_sock();
        resolve(sk.get());
        return true;
    } catch (const ModuleNotLoaded&) {
        return false;
    }
}

Result run_module(const Request& req)
{
    nl::SockPtr sock = nl::make_sock();
    nl_sock* sk = sock.get();
    int family = resolve(sk);
    int one = 1;
    if (setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
        log::debug("no extended acks: {}", std::strerror(errno));
    nl_socket_set_msg_buf_size(sk, 64 * 1024);
    int err = nl_socket_set_nonblocking(sk);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot make the netlink socket non-blocking", err), err);

    const std::string action = fmt::format("{} on {}", command_name(req.cmd, req.sub),
                                           device_name(req.shelf, req.slot));
    uint32_t cookie = random_u32();
    nl::MsgPtr msg = build_ctl(family, req, cookie);
    err = nl_send_auto(sk, msg.get());
    if (err < 0)
        throw NetlinkError(nl::error_text(fmt::format("{}: cannot send", action), err), err);
    log::info("{} through the module (cookie {:#010x})", action, cookie);

    Result res;
    res.shelf = req.shelf;
    res.slot = req.slot;
    res.cmd = req.cmd;
    res.sub = req.sub;
    res.via = "module";
    bool acked = false;
    std::optional<uint32_t> count;
    std::map<uint32_t, PathAnswer> got;
    auto deadline = Clock::now() + req.timeout + kModuleSlack;
    while (!(acked && count && got.size() == *count)) {
        int left = ms_until(deadline);
        if (left == 0)
            throw Error(fmt::format("{}: the module sent {} of {} results within {} ms; its "
                                    "answers are lost (aoe-stat -a; dmesg)",
                                    action, got.size(), count ? std::to_string(*count) : "?",
                                    (req.timeout + kModuleSlack).count()));
        pollfd pfd{nl_socket_get_fd(sk), POLLIN, 0};
        int n = ::poll(&pfd, 1, left);
        if (n < 0 && errno != EINTR)
            throw Error(fmt::format("waiting for the module: {}", std::strerror(errno)));
        if (n <= 0)
            continue;
        for (;;) {
            sockaddr_nl from{};
            unsigned char* buf = nullptr;
            int len = nl_recv(sk, &from, &buf, nullptr);
            if (len == -NLE_AGAIN || len == 0)
                break;
            if (len < 0)
                throw NetlinkError(nl::error_text("receiving from the module", len), len);
            std::unique_ptr<unsigned char, decltype(&std::free)> own(buf, &std::free);
            auto* nlh = reinterpret_cast<nlmsghdr*>(buf);
            for (; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
                if (nlh->nlmsg_type == NLMSG_ERROR) {
                    if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr))
                        throw ParseError("truncated netlink error message");
                    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(nlh));
                    if (e->error)
                        nl::throw_request_error(action, -nl_syserr2nlerr(-e->error), -e->error,
                                                nl::extack_message(nlh));
                    acked = true;
                    continue;
                }
                if (nlh->nlmsg_type != family)
                    continue;
                CtlMessage m = parse_ctl_message(nlh);
                if (m.cookie != cookie)
                    continue;  // an earlier request's
                if (count && m.count != *count)
                    throw ParseError("control results disagree on their number");
                count = m.count;
                if (m.cmd == AOE_CMD_CTL_RESULT && m.index)
                    got[*m.index] = std::move(m.answer);
            }
        }
    }
    for (auto& [i, a] : got)
        res.paths.push_back(std::move(a));
    return res;
}

namespace {

// One copy (transmission) of a request on a path.
struct Copy {
    uint32_t tag = 0;
    Clock::time_point sent{};
    bool answered = false;
};

// As the module does (aoe(4), AOE_CMD_CTL): the answer to any copy counts;
// a read is done with the first one, a change with the first successful one
// (a later copy may be refused because of what the first one set); an
// unsuccessful answer stops further copies and is the result once every copy
// is answered, or at the timeout.
struct RawPath {
    size_t sock = 0;
    PathAnswer a;
    std::vector<Copy> copies;
    Clock::time_point next{};
    bool kept = false;  // a change's unsuccessful answer is in a
    bool done = false;
};

size_t encode(const Request& req, const probe::PacketSocket& s, const Mac& dst, uint32_t tag,
              std::vector<uint8_t>& frame)
{
    frame.assign(aoe_ctl_frame_len(req.cmd, req.data.size()) + AOE_ETH_ZLEN, 0);
    const uint8_t* src = s.iface().mac.data();
    switch (req.cmd) {
    case AOE_CMD_CFG:
        return aoe_encode_cfg(frame.data(), frame.size(), dst.data(), src, req.shelf, req.slot,
                              tag, req.sub, req.data.data(), req.data.size());
    case AOE_CMD_MASK:
        return aoe_encode_mask(frame.data(), frame.size(), dst.data(), src, req.shelf, req.slot,
                               tag, req.sub, req.data.data(), req.data.size() / AOE_MASK_DIR_LEN);
    case AOE_CMD_RESERVE:
        return aoe_encode_resv(frame.data(), frame.size(), dst.data(), src, req.shelf, req.slot,
                               tag, req.sub, req.data.data(), req.data.size() / AOE_ETH_ALEN);
    }
    return 0;
}

void take(const Request& req, PathAnswer& a, const aoe_frame& f, Clock::time_point sent)
{
    a.rtt_us = static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - sent).count());
    a.config.reset();
    a.macs.clear();
    a.merror = 0;
    a.count = 0;
    bool err = f.flags & AOE_FL_ERR;
    a.status = err ? Status::error : Status::answered;
    a.aoe_error = err ? f.error : 0;
    switch (req.cmd) {
    case AOE_CMD_CFG:
        a.bufcnt = f.cfg.bufcnt;
        a.fwver = f.cfg.fwver;
        a.maxsect = f.cfg.maxsect;
        a.aoever = f.cfg.aoever;
        a.config.emplace(reinterpret_cast<const char*>(f.cfg.cfg), f.cfg.cfglen);
        break;
    case AOE_CMD_MASK:
        a.merror = f.mask.merror;
        a.count = f.mask.count;
        if (f.mask.dirs)
            for (unsigned i = 0; i < f.mask.count; i++) {
                Mac m{};
                std::memcpy(m.data(), f.mask.dirs + i * AOE_MASK_DIR_LEN + 2, 6);
                a.macs.push_back(m);
            }
        break;
    case AOE_CMD_RESERVE:
        a.count = f.resv.count;
        if (f.resv.macs)
            for (unsigned i = 0; i < f.resv.count; i++) {
                Mac m{};
                std::memcpy(m.data(), f.resv.macs + i * 6, 6);
                a.macs.push_back(m);
            }
        break;
    }
}

// The target's ports on each interface: a Query Config to its address.
struct Port {
    size_t sock;
    Mac mac;
};

std::vector<Port> find_ports(std::vector<probe::PacketSocket>& socks, probe::TagSource& tags,
                             uint16_t shelf, uint8_t slot, std::vector<uint8_t>& buf)
{
    const uint8_t bcast[AOE_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    std::vector<uint32_t> reqtags;
    std::array<uint8_t, AOE_CFG_HDR_LEN> frame{};
    for (auto& s : socks) {
        uint32_t tag = tags.next();
        aoe_encode_qc(frame.data(), bcast, s.iface().mac.data(), shelf, slot, tag);
        s.send(frame.data(), frame.size());
        reqtags.push_back(tag);
    }
    std::vector<Port> out;
    auto until = Clock::now() + kDiscover;
    std::vector<pollfd> pfds;
    for (const auto& s : socks)
        pfds.push_back({s.fd(), POLLIN, 0});
    for (;;) {
        int timeout = ms_until(until);
        int n = ::poll(pfds.data(), pfds.size(), timeout);
        if (n < 0 && errno != EINTR)
            throw ProbeError(fmt::format("poll failed: {}", std::strerror(errno)));
        for (size_t i = 0; n > 0 && i < socks.size(); i++) {
            while (auto len = socks[i].receive(buf.data(), buf.size())) {
                aoe_frame f{};
                if (*len > buf.size() ||
                    aoe_decode_response(buf.data(), *len, *len, &f) != 0 ||
                    f.tag != reqtags[i] || f.cmd != AOE_CMD_CFG || f.shelf != shelf ||
                    f.slot != slot)
                    continue;
                Mac m{};
                std::memcpy(m.data(), f.src, 6);
                if (std::none_of(out.begin(), out.end(),
                                 [&](const Port& p) { return p.sock == i && p.mac == m; }))
                    out.push_back({i, m});
            }
        }
        if (timeout == 0)
            break;
    }
    return out;
}

}  // namespace

Result run_raw(const Request& req, const NetOptions& opts)
{
    auto ifaces = probe::select_interfaces(probe::list_interfaces(), opts.interfaces);
    std::vector<probe::PacketSocket> socks;
    for (const auto& i : ifaces)
        socks.emplace_back(i);
    probe::TagSource tags(random_u32());
    std::vector<uint8_t> buf(65536);
    const std::string dev = device_name(req.shelf, req.slot);

    Result res;
    res.shelf = req.shelf;
    res.slot = req.slot;
    res.cmd = req.cmd;
    res.sub = req.sub;
    res.via = "raw";
    auto ports = find_ports(socks, tags, req.shelf, req.slot, buf);
    if (ports.empty())
        throw Error(fmt::format("{}: no answer to a Query Config on {} within {} ms (no such "
                                "target, or it masks this host out)",
                                dev, ifaces.size() == 1 ? ifaces[0].name : "any interface",
                                kDiscover.count()));
    std::vector<RawPath> paths;
    for (const auto& p : ports) {
        // a change goes once per target port, as the module does
        if (req.change() && std::any_of(paths.begin(), paths.end(), [&](const RawPath& r) {
                return r.a.dst == p.mac;
            }))
            continue;
        RawPath r;
        r.sock = p.sock;
        r.a.ifname = socks[p.sock].iface().name;
        r.a.ifindex = static_cast<uint32_t>(socks[p.sock].iface().ifindex);
        r.a.src = socks[p.sock].iface().mac;
        r.a.dst = p.mac;
        if (!aoe_ctl_fits_mtu(aoe_ctl_frame_len(req.cmd, req.data.size()),
                              socks[p.sock].iface().mtu)) {
            r.a.status = Status::too_big;
            r.done = true;
        }
        paths.push_back(std::move(r));
    }
    auto deadline = Clock::now() + req.timeout;
    std::vector<uint8_t> frame;
    for (;;) {
        bool pending = false;
        auto now = Clock::now();
        for (auto& r : paths) {
            if (r.done)
                continue;
            if (now >= deadline) {
                if (!r.kept)
                    r.a.status = Status::timeout;
                r.done = true;
                continue;
            }
            pending = true;
            if (now < r.next || r.kept)
                continue;
            Copy c{tags.next(), now, false};
            size_t len = encode(req, socks[r.sock], r.a.dst, c.tag, frame);
            if (!len)
                throw UsageError("the request does not fit an AoE frame");
            socks[r.sock].send(frame.data(), len);
            r.copies.push_back(c);
            r.next = now + kRetry;
            r.a.tries++;
            log::debug("{} to {} on {} (tag {:#010x}, try {})", command_name(req.cmd, req.sub),
                       format_mac(r.a.dst), r.a.ifname, c.tag, r.a.tries);
        }
        if (!pending)
            break;
        std::vector<pollfd> pfds;
        for (const auto& s : socks)
            pfds.push_back({s.fd(), POLLIN, 0});
        auto wake = deadline;
        for (const auto& r : paths)
            if (!r.done && !r.kept)  // a kept answer waits for the rest only
                wake = std::min(wake, r.next);
        int n = ::poll(pfds.data(), pfds.size(), std::max(1, ms_until(wake)));
        if (n < 0 && errno != EINTR)
            throw ProbeError(fmt::format("poll failed: {}", std::strerror(errno)));
        for (size_t i = 0; n > 0 && i < socks.size(); i++) {
            while (auto len = socks[i].receive(buf.data(), buf.size())) {
                aoe_frame f{};
                if (*len > buf.size())
                    continue;
                int rc = aoe_decode_response(buf.data(), *len, *len, &f);
                if ((rc && rc != -AOE_DROP_ERROR) || !aoe_tag_is_user(f.tag) ||
                    f.cmd != req.cmd || f.shelf != req.shelf || f.slot != req.slot)
                    continue;
                Mac src{};
                std::memcpy(src.data(), f.src, 6);
                for (auto& r : paths) {
                    if (r.done || r.sock != i || r.a.dst != src)
                        continue;
                    auto c = std::find_if(r.copies.begin(), r.copies.end(),
                                          [&](const Copy& k) { return k.tag == f.tag; });
                    if (c == r.copies.end() || c->answered)
                        continue;
                    c->answered = true;
                    bool ok = !(f.flags & AOE_FL_ERR) &&
                              !(req.cmd == AOE_CMD_MASK && f.mask.merror);
                    if (!req.change() || ok || !r.kept)
                        take(req, r.a, f, c->sent);
                    if (req.change() && !ok) {
                        r.kept = true;
                        if (std::any_of(r.copies.begin(), r.copies.end(),
                                        [](const Copy& k) { return !k.answered; }))
                            continue;  // a copy still out may have taken
                    }
                    r.done = true;
                }
            }
        }
    }
    for (auto& r : paths)
        res.paths.push_back(std::move(r.a));
    return res;
}

Result run(const Request& req, const NetOptions& opts)
{
    if (!opts.raw) {
        try {
            return run_module(req);
        } catch (const ModuleNotLoaded&) {
            log::info("the aoe module is not loaded: raw sockets instead");
        }
    }
    return run_raw(req, opts);
}

std::optional<aoe_identity> raw_identify(uint16_t shelf, uint8_t slot, const NetOptions& opts,
                                         std::chrono::milliseconds timeout)
{
    auto ifaces = probe::select_interfaces(probe::list_interfaces(), opts.interfaces);
    std::vector<probe::PacketSocket> socks;
    for (const auto& i : ifaces)
        socks.emplace_back(i);
    probe::TagSource tags(random_u32());
    std::vector<uint8_t> buf(65536);
    auto ports = find_ports(socks, tags, shelf, slot, buf);
    auto deadline = Clock::now() + timeout;
    for (const auto& p : ports) {
        auto& s = socks[p.sock];
        for (int attempt = 0; attempt < 3 && Clock::now() < deadline; attempt++) {
            probe::Request r;
            r.tag = tags.next();
            r.cmd = AOE_CMD_ATA;
            r.shelf = shelf;
            r.slot = slot;
            r.mac = p.mac;
            r.sectors = 1;
            std::array<uint8_t, AOE_ATA_HDR_LEN> frame{};
            size_t len = aoe_encode_ata(frame.data(), p.mac.data(), s.iface().mac.data(), shelf,
                                        slot, r.tag, ATA_CMD_IDENTIFY, false, false, 0, 1);
            s.send(frame.data(), len);
            auto until = std::min(deadline, Clock::now() + kRetry);
            pollfd pfd{s.fd(), POLLIN, 0};
            for (;;) {
                bool got = false;
                while (auto n = s.receive(buf.data(), buf.size())) {
                    aoe_frame f{};
                    if (*n > buf.size() ||
                        probe::match_response(buf.data(), *n, r, f) != probe::Match::answer)
                        continue;
                    aoe_identity id{};
                    if (aoe_parse_identify(buf.data() + AOE_ATA_HDR_LEN, &id) == AOE_IDENT_OK)
                        return id;
                    got = true;
                }
                if (got)
                    break;
                int t = ms_until(until);
                if (t == 0)
                    break;
                if (::poll(&pfd, 1, t) < 0 && errno != EINTR)
                    throw ProbeError(fmt::format("poll failed: {}", std::strerror(errno)));
            }
        }
    }
    return std::nullopt;
}

}  // namespace aoe::ctl
