#include "core/netlink.hpp"

#include <fmt/format.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "aoe_netlink.h"
#include "core/log.hpp"

namespace aoe {

namespace nl {

void SockDeleter::operator()(nl_sock* s) const noexcept
{
    nl_socket_free(s);  // also closes it
}
void MsgDeleter::operator()(nl_msg* m) const noexcept
{
    nlmsg_free(m);
}
void CbDeleter::operator()(nl_cb* c) const noexcept
{
    nl_cb_put(c);
}

SockPtr make_sock()
{
    SockPtr s(nl_socket_alloc());
    if (!s)
        throw NetlinkError(error_text("cannot allocate a netlink socket", -NLE_NOMEM),
                           -NLE_NOMEM);
    return s;
}

MsgPtr make_msg()
{
    MsgPtr m(nlmsg_alloc());
    if (!m)
        throw NetlinkError(error_text("cannot allocate a netlink message", -NLE_NOMEM),
                           -NLE_NOMEM);
    return m;
}

CbPtr make_cb()
{
    CbPtr c(nl_cb_alloc(NL_CB_DEFAULT));
    if (!c)
        throw NetlinkError(error_text("cannot allocate a netlink callback", -NLE_NOMEM),
                           -NLE_NOMEM);
    return c;
}

std::string error_text(const std::string& what, int err)
{
    return fmt::format("{}: {}", what, nl_geterror(err));
}

void throw_request_error(const std::string& action, int nl_err, int sys_errno,
                         const std::string& extack)
{
    if (sys_errno == EPERM || nl_err == -NLE_PERM)
        throw PermissionDenied(
            fmt::format("permission denied: {} needs CAP_NET_ADMIN (run as root)", action));
    // libnl maps errnos it does not know (EMSGSIZE, ...) to "Unspecific
    // failure": the kernel's errno says more.
    std::string text = sys_errno && nl_err == -NLE_FAILURE
                           ? fmt::format("{} failed: {}", action, std::strerror(sys_errno))
                           : error_text(fmt::format("{} failed", action), nl_err);
    if (!extack.empty())
        text += fmt::format(" ({})", extack);
    throw NetlinkError(text, nl_err);
}

std::string extack_message(const nlmsghdr* nlh)
{
    if (nlh->nlmsg_type != NLMSG_ERROR || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
        return {};
    if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr))
        return {};
    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(nlh));
    size_t off = NLMSG_HDRLEN + sizeof(nlmsgerr);
    if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
        if (e->msg.nlmsg_len < NLMSG_HDRLEN)
            return {};
        off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);  // the request echoed back
    }
    if (nlh->nlmsg_len <= off)
        return {};
    auto* attrs = reinterpret_cast<nlattr*>(
        const_cast<char*>(reinterpret_cast<const char*>(nlh)) + off);
    nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
    nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {};
    policy[NLMSGERR_ATTR_MSG] = {NLA_STRING, 0, 1024};
    if (nla_parse(tb, NLMSGERR_ATTR_MAX, attrs, static_cast<int>(nlh->nlmsg_len - off), policy) <
            0 ||
        !tb[NLMSGERR_ATTR_MSG])
        return {};
    return nla_get_string(tb[NLMSGERR_ATTR_MSG]);
}

}  // namespace nl

namespace {

constexpr size_t kMsgBufSize = 64 * 1024;     // several dump messages per read
constexpr size_t kMsgBufMin = 4096;           // the kernel's smallest dump skb fits
constexpr size_t kMsgBufMax = 1024 * 1024;
constexpr int kEventRcvBuf = 1024 * 1024;     // room for a burst of events
constexpr int kReplyTimeoutSec = 5;           // the module answers at once

// The receive buffer of each recvmsg(): kMsgBufSize, or AOE_NETLINK_MSGBUF
// bytes (4096..1 MiB) to test that every tool works with a small one. The
// kernel sizes a dump's messages to fit the largest buffer seen so far.
size_t msg_buf_size()
{
    const char* env = std::getenv("AOE_NETLINK_MSGBUF");
    if (!env || !*env)
        return kMsgBufSize;
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (errno || *end || v < kMsgBufMin || v > kMsgBufMax) {
        log::warning("ignoring AOE_NETLINK_MSGBUF={}: not a size from {} to {} bytes", env,
                     kMsgBufMin, kMsgBufMax);
        return kMsgBufSize;
    }
    return static_cast<size_t>(v);
}

// Connects a generic netlink socket and resolves the "aoe" family.
int connect_family(nl_sock* sk)
{
    int err = genl_connect(sk);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot connect a generic netlink socket", err), err);
    nl_socket_set_msg_buf_size(sk, msg_buf_size());
    int family = genl_ctrl_resolve(sk, AOE_GENL_NAME);
    if (family == -NLE_OBJ_NOTFOUND)
        throw ModuleNotLoaded();
    if (family < 0)
        throw NetlinkError(nl::error_text("cannot resolve generic netlink family \"aoe\"", family),
                           family);
    log::debug("generic netlink family \"{}\" is {}", AOE_GENL_NAME, family);
    return family;
}

void put_check(int err, const char* attr)
{
    if (err < 0)
        throw NetlinkError(nl::error_text(fmt::format("cannot add {} to a request", attr), err),
                           err);
}

// State shared with the libnl callbacks of one request.
struct Transaction {
    const std::function<void(nlmsghdr*)>* on_msg = nullptr;
    bool done = false;
    bool interrupted = false;
    int sys_errno = 0;
    std::string extack;
    std::exception_ptr exc;
};

int tx_valid(nl_msg* msg, void* arg)
{
    auto* tx = static_cast<Transaction*>(arg);
    nlmsghdr* nlh = nlmsg_hdr(msg);
    if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
        tx->interrupted = true;
    try {
        (*tx->on_msg)(nlh);
    } catch (...) {
        tx->exc = std::current_exception();
        tx->done = true;
        return NL_STOP;
    }
    return NL_OK;
}

int tx_finish(nl_msg* msg, void* arg)
{
    auto* tx = static_cast<Transaction*>(arg);
    // A dump that failed in the kernel ends with NLMSG_DONE carrying the
    // negative errno; libnl does not report it.
    nlmsghdr* nlh = nlmsg_hdr(msg);
    if (nlh->nlmsg_type == NLMSG_DONE && nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
        int error;
        std::memcpy(&error, NLMSG_DATA(nlh), sizeof(error));
        if (error < 0 && !tx->sys_errno)
            tx->sys_errno = -error;
    }
    tx->done = true;
    return NL_STOP;
}

int tx_dump_intr(nl_msg*, void* arg)
{
    static_cast<Transaction*>(arg)->interrupted = true;
    return NL_OK;
}

int tx_error(sockaddr_nl*, nlmsgerr* e, void* arg)
{
    auto* tx = static_cast<Transaction*>(arg);
    tx->sys_errno = -e->error;
    tx->extack = nl::extack_message(reinterpret_cast<const nlmsghdr*>(
        reinterpret_cast<const char*>(e) - NLMSG_HDRLEN));
    tx->done = true;
    return NL_STOP;
}

// State shared with the libnl callbacks of an event wait.
struct EventWait {
    const std::function<bool(const Event&)>* on_event = nullptr;
    bool stop = false;
    std::exception_ptr exc;
};

int ev_valid(nl_msg* msg, void* arg)
{
    auto* w = static_cast<EventWait*>(arg);
    if (w->stop)
        return NL_SKIP;
    nlmsghdr* nlh = nlmsg_hdr(msg);
    Event e;
    try {
        e = parse_event_message(nlh);
    } catch (const ParseError& err) {
        log::warning("ignoring event: {}", err.what());
        return NL_OK;
    }
    log::debug("event {} for {}", event_name(e.cmd), e.target.device);
    try {
        if (!(*w->on_event)(e))
            w->stop = true;
    } catch (...) {
        w->exc = std::current_exception();
        w->stop = true;
    }
    return NL_OK;
}

int ev_seq_ok(nl_msg*, void*)
{
    return NL_OK;  // multicast messages carry sequence number 0
}

// The version requests carry: AOE_GENL_VERSION, or for tests
// AOE_NETLINK_REQUEST_VERSION (1 plays a reader that predates split dumps).
uint8_t request_version()
{
    const char* env = std::getenv("AOE_NETLINK_REQUEST_VERSION");
    if (env && env[0] >= '1' && env[0] <= '9' && !env[1])
        return static_cast<uint8_t>(env[0] - '0');
    return AOE_GENL_VERSION;
}

}  // namespace

nl::MsgPtr build_request(int family, uint8_t cmd, int flags)
{
    nl::MsgPtr msg = nl::make_msg();
    if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
                     request_version()))
        throw NetlinkError(nl::error_text("cannot build a request", -NLE_NOMEM), -NLE_NOMEM);
    return msg;
}

nl::MsgPtr build_get_targets(int family)
{
    return build_request(family, AOE_CMD_GET_TARGET, NLM_F_DUMP);
}

nl::MsgPtr build_get_target(int family, uint16_t shelf, uint8_t slot)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_GET_TARGET, 0);
    put_check(nla_put_u16(msg.get(), AOE_A_SHELF, shelf), "AOE_A_SHELF");
    put_check(nla_put_u8(msg.get(), AOE_A_SLOT, slot), "AOE_A_SLOT");
    return msg;
}

nl::MsgPtr build_get_info(int family)
{
    return build_request(family, AOE_CMD_GET_INFO, 0);
}

nl::MsgPtr build_discover(int family, const std::optional<std::string>& ifname)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_DISCOVER, 0);
    if (ifname)
        put_check(nla_put_string(msg.get(), AOE_A_IFNAME, ifname->c_str()), "AOE_A_IFNAME");
    return msg;
}

Client::Client() : sock_(nl::make_sock()), cb_(nl::make_cb())
{
    family_ = connect_family(sock_.get());
    // Let the kernel explain its errors (NLMSGERR_ATTR_MSG).
    int one = 1;
    if (setsockopt(nl_socket_get_fd(sock_.get()), SOL_NETLINK, NETLINK_EXT_ACK, &one,
                   sizeof(one)) < 0)
        log::debug("no extended acks: {}", std::strerror(errno));
    // A reply that never comes must not hang a tool.
    timeval tv{kReplyTimeoutSec, 0};
    if (setsockopt(nl_socket_get_fd(sock_.get()), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
        log::warning("cannot set a receive timeout: {}", std::strerror(errno));
}

Client::~Client() = default;

Client::Reply Client::transact(nl_msg* msg, const std::function<void(nlmsghdr*)>& on_msg)
{
    Transaction tx;
    tx.on_msg = &on_msg;
    nl_cb* cb = cb_.get();
    nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, tx_valid, &tx);
    nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, tx_finish, &tx);
    nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, tx_finish, &tx);
    nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, tx_dump_intr, &tx);
    nl_cb_err(cb, NL_CB_CUSTOM, tx_error, &tx);

    int err = nl_send_auto(sock_.get(), msg);
    if (err < 0)
        return {err, 0, false, {}};
    while (!tx.done) {
        err = nl_recvmsgs(sock_.get(), cb);
        if (tx.exc)
            std::rethrow_exception(tx.exc);
        if (err == -NLE_DUMP_INTR) {
            tx.interrupted = true;
            err = 0;
        }
        if (err < 0)
            break;
    }
    if (tx.sys_errno && err == 0)
        err = -nl_syserr2nlerr(tx.sys_errno);
    if (err == -NLE_AGAIN)
        throw NetlinkError(fmt::format("no answer from the aoe module within {} s: {}",
                                       kReplyTimeoutSec, nl_geterror(err)),
                           err);
    return {err, tx.sys_errno, tx.interrupted, std::move(tx.extack)};
}

std::vector<Target> Client::get_targets()
{
    constexpr int kAttempts = 5;
    for (int attempt = 1;; ++attempt) {
        TargetDump dump;
        nl::MsgPtr req = build_get_targets(family_);
        Reply r = transact(req.get(), [&](nlmsghdr* nlh) { dump.add(nlh); });
        if (r.nl_err < 0)
            nl::throw_request_error("listing targets", r.nl_err, r.sys_errno, r.extack);
        log::debug("target dump: {} messages", dump.messages());
        if (!r.interrupted)
            return std::move(dump).finish();
        log::debug("target dump interrupted by a change (attempt {})", attempt);
        if (attempt == kAttempts)
            throw NetlinkError(
                fmt::format("listing targets failed: the target table kept changing ({} tries): {}",
                            kAttempts, nl_geterror(-NLE_DUMP_INTR)),
                -NLE_DUMP_INTR);
    }
}

std::optional<Target> Client::get_target(uint16_t shelf, uint8_t slot)
{
    // From the dump, not the single-target request: its one reply message
    // can be larger than a small receive buffer (uapi header).
    for (auto& t : get_targets())
        if (t.shelf == shelf && t.slot == slot)
            return std::move(t);
    return std::nullopt;
}

ModuleInfo Client::get_info()
{
    std::optional<ModuleInfo> info;
    nl::MsgPtr req = build_get_info(family_);
    Reply r = transact(req.get(), [&](nlmsghdr* nlh) { info = parse_info_message(nlh); });
    if (r.nl_err < 0)
        nl::throw_request_error("reading module information", r.nl_err, r.sys_errno, r.extack);
    if (!info)
        throw ParseError("the aoe module acknowledged GET_INFO without a reply");
    return *info;
}

void Client::discover(const std::optional<std::string>& ifname)
{
    nl::MsgPtr req = build_discover(family_, ifname);
    log::info("asking the module to discover targets{}",
              ifname ? fmt::format(" on {}", *ifname) : std::string(" on every interface"));
    Reply r = transact(req.get(), [](nlmsghdr*) {});
    if (r.nl_err < 0)
        nl::throw_request_error(ifname ? fmt::format("discovery on {}", *ifname)
                                       : std::string("discovery"),
                                r.nl_err, r.sys_errno, r.extack);
}

void Client::command(nl_msg* msg, const std::string& action)
{
    log::info("{}", action);
    Reply r = transact(msg, [](nlmsghdr*) {});
    if (r.nl_err < 0)
        nl::throw_request_error(action, r.nl_err, r.sys_errno, r.extack);
}

EventListener::EventListener() : sock_(nl::make_sock()), cb_(nl::make_cb())
{
    nl_sock* sk = sock_.get();
    connect_family(sk);
    int grp = genl_ctrl_resolve_grp(sk, AOE_GENL_NAME, AOE_GENL_MCGRP_EVENTS);
    if (grp < 0)
        throw NetlinkError(nl::error_text("cannot resolve the aoe \"events\" group", grp), grp);
    int err = nl_socket_add_membership(sk, grp);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot join the aoe \"events\" group", err), err);
    err = nl_socket_set_buffer_size(sk, kEventRcvBuf, 0);
    if (err < 0)
        log::warning("{}", nl::error_text("cannot enlarge the event socket buffer", err));
    err = nl_socket_set_nonblocking(sk);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot make the event socket non-blocking", err), err);
    nl_cb_set(cb_.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, ev_seq_ok, nullptr);
    log::debug("joined multicast group \"{}\" ({})", AOE_GENL_MCGRP_EVENTS, grp);
}

EventListener::~EventListener() = default;

int EventListener::fd() const
{
    return nl_socket_get_fd(sock_.get());
}

bool EventListener::wait_events(std::chrono::steady_clock::time_point deadline,
                                const std::function<bool(const Event&)>& on_event)
{
    using namespace std::chrono;
    EventWait w;
    w.on_event = &on_event;
    nl_cb_set(cb_.get(), NL_CB_VALID, NL_CB_CUSTOM, ev_valid, &w);

    for (;;) {
        // Events already queued are read even when the deadline has passed
        // (aoe-top asks with deadline = now once poll() says the socket is
        // readable): poll without waiting then.
        auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
        bool late = left.count() <= 0;
        pollfd pfd{fd(), POLLIN, 0};
        int n = poll(&pfd, 1, late ? 0 : static_cast<int>(std::min<int64_t>(left.count() + 1, 1000)));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw Error(fmt::format("waiting for aoe events: {}", std::strerror(errno)));
        }
        if (n == 0) {
            if (late)
                return true;
            continue;
        }
        // Drain what is queued, until the non-blocking socket says EAGAIN.
        for (;;) {
            int got = nl_recvmsgs_report(sock_.get(), cb_.get());
            if (w.exc)
                std::rethrow_exception(w.exc);
            if (w.stop)
                return false;
            if (got == -NLE_AGAIN || got == 0)
                break;
            if (got == -NLE_NOMEM) {  // ENOBUFS: the kernel dropped events
                log::warning("some aoe events were lost (receive buffer overrun)");
                continue;
            }
            if (got < 0)
                throw NetlinkError(nl::error_text("receiving aoe events", got), got);
        }
    }
}

}  // namespace aoe
