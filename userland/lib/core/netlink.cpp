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
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>

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
    // The kernel explains an EPERM of its own (a namespace AoE does not
    // use); genetlink's CAP_NET_ADMIN check (GENL_ADMIN_PERM) says nothing.
    if ((sys_errno == EPERM || nl_err == -NLE_PERM) && !extack.empty())
        throw PermissionDenied(fmt::format("permission denied: {}: {}", action, extack));
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

void put_attr(int err, const char* attr)
{
    if (err < 0)
        throw NetlinkError(error_text(fmt::format("cannot add {} to a request", attr), err), err);
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

namespace {

// State of one CTRL_CMD_GETFAMILY dump.
struct FamilyDump {
    const std::string* name = nullptr;
    std::optional<Family> found;
    bool done = false;
    int sys_errno = 0;
    std::exception_ptr exc;
};

int fam_valid(nl_msg* msg, void* arg)
{
    auto* d = static_cast<FamilyDump*>(arg);
    try {
        if (auto f = parse_family(nlmsg_hdr(msg), *d->name))
            d->found = std::move(f);
    } catch (...) {
        d->exc = std::current_exception();
    }
    return NL_OK;
}

int fam_finish(nl_msg*, void* arg)
{
    static_cast<FamilyDump*>(arg)->done = true;
    return NL_STOP;
}

int fam_error(sockaddr_nl*, nlmsgerr* e, void* arg)
{
    auto* d = static_cast<FamilyDump*>(arg);
    d->sys_errno = -e->error;
    d->done = true;
    return NL_STOP;
}

}  // namespace

std::optional<uint32_t> Family::group(const std::string& name) const
{
    for (const auto& [n, id] : groups)
        if (n == name)
            return id;
    return std::nullopt;
}

std::optional<Family> parse_family(const nlmsghdr* nlh, const std::string& name)
{
    auto* h = const_cast<nlmsghdr*>(nlh);
    nlattr* tb[CTRL_ATTR_MAX + 1] = {};
    if (genlmsg_parse(h, 0, tb, CTRL_ATTR_MAX, nullptr) < 0)
        throw ParseError("malformed generic netlink family message");
    if (!tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID] ||
        nla_len(tb[CTRL_ATTR_FAMILY_ID]) < 2)
        throw ParseError("generic netlink family message without a name or id");
    const nlattr* na = tb[CTRL_ATTR_FAMILY_NAME];
    std::string got(static_cast<const char*>(nla_data(na)),
                    strnlen(static_cast<const char*>(nla_data(na)), nla_len(na)));
    if (got != name)
        return std::nullopt;
    Family f;
    f.id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
    if (tb[CTRL_ATTR_MCAST_GROUPS]) {
        nlattr* grp;
        int rem;
        nla_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
            nlattr* g[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
            if (nla_parse_nested(g, CTRL_ATTR_MCAST_GRP_MAX, grp, nullptr) < 0)
                throw ParseError("malformed multicast group in family " + name);
            if (!g[CTRL_ATTR_MCAST_GRP_NAME] || !g[CTRL_ATTR_MCAST_GRP_ID] ||
                nla_len(g[CTRL_ATTR_MCAST_GRP_ID]) < 4)
                continue;
            const nlattr* gn = g[CTRL_ATTR_MCAST_GRP_NAME];
            f.groups.emplace_back(
                std::string(static_cast<const char*>(nla_data(gn)),
                            strnlen(static_cast<const char*>(nla_data(gn)), nla_len(gn))),
                nla_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]));
        }
    }
    return f;
}

std::optional<Family> find_family(nl_sock* sk, const std::string& name)
{
    MsgPtr req = make_msg();
    if (!genlmsg_put(req.get(), NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, NLM_F_DUMP,
                     CTRL_CMD_GETFAMILY, 1))
        throw NetlinkError(error_text("cannot build a request", -NLE_NOMEM), -NLE_NOMEM);
    CbPtr cb = make_cb();
    FamilyDump d;
    d.name = &name;
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, fam_valid, &d);
    nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, fam_finish, &d);
    nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, fam_finish, &d);
    nl_cb_err(cb.get(), NL_CB_CUSTOM, fam_error, &d);
    int err = nl_send_auto(sk, req.get());
    while (err >= 0 && !d.done)
        err = nl_recvmsgs(sk, cb.get());
    if (d.exc)
        std::rethrow_exception(d.exc);
    if (err >= 0 && d.sys_errno)
        err = -nl_syserr2nlerr(d.sys_errno);
    if (err < 0)
        throw NetlinkError(error_text("listing generic netlink families", err), err);
    return d.found;
}

}  // namespace nl

ModuleNotLoaded module_missing_error(const std::string& sys_module)
{
    // The in-tree driver goes live without a netlink family; aoekit's
    // registers "aoe" during its init, before the module is live.
    std::ifstream state(std::filesystem::path(sys_module) / "aoe" / "initstate");
    std::string line;
    if (state && std::getline(state, line) && line == "live")
        return ModuleNotLoaded(
            "the in-tree aoe driver is loaded: rmmod aoe && modprobe aoe from aoekit");
    return ModuleNotLoaded();
}

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

// Connects a generic netlink socket and looks up the "aoe" family, loading
// the module first only with Autoload::kYes.
nl::Family connect_family(nl_sock* sk, Autoload autoload)
{
    int err = genl_connect(sk);
    if (err < 0)
        throw NetlinkError(nl::error_text("cannot connect a generic netlink socket", err), err);
    nl_socket_set_msg_buf_size(sk, msg_buf_size());
    std::optional<nl::Family> fam = nl::find_family(sk, AOE_GENL_NAME);
    if (!fam && autoload == Autoload::kYes) {
        // A lookup by name: the kernel request_module()s the family's alias.
        int id = genl_ctrl_resolve(sk, AOE_GENL_NAME);
        if (id < 0 && id != -NLE_OBJ_NOTFOUND)
            throw NetlinkError(
                nl::error_text("cannot resolve generic netlink family \"aoe\"", id), id);
        if (id >= 0)
            fam = nl::find_family(sk, AOE_GENL_NAME);
    }
    if (!fam)
        throw module_missing_error();
    log::debug("generic netlink family \"{}\" is {}", AOE_GENL_NAME, fam->id);
    return *fam;
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
    nl::put_attr(nla_put_u16(msg.get(), AOE_A_SHELF, shelf), "AOE_A_SHELF");
    nl::put_attr(nla_put_u8(msg.get(), AOE_A_SLOT, slot), "AOE_A_SLOT");
    return msg;
}

nl::MsgPtr build_get_info(int family, std::optional<int> netns_fd)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_GET_INFO, 0);
    if (netns_fd)
        nl::put_attr(nla_put_u32(msg.get(), AOE_A_NETNS_FD, static_cast<uint32_t>(*netns_fd)),
                     "AOE_A_NETNS_FD");
    return msg;
}

nl::MsgPtr build_discover(int family, const std::optional<std::string>& ifname)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_DISCOVER, 0);
    if (ifname)
        nl::put_attr(nla_put_string(msg.get(), AOE_A_IFNAME, ifname->c_str()), "AOE_A_IFNAME");
    return msg;
}

Client::Client(Autoload autoload) : sock_(nl::make_sock()), cb_(nl::make_cb())
{
    family_ = connect_family(sock_.get(), autoload).id;
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

ModuleInfo Client::get_info(std::optional<int> netns_fd)
{
    std::optional<ModuleInfo> info;
    nl::MsgPtr req = build_get_info(family_, netns_fd);
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
    nl::Family fam = connect_family(sk, Autoload::kNo);
    std::optional<uint32_t> g = fam.group(AOE_GENL_MCGRP_EVENTS);
    if (!g)
        throw NetlinkError(fmt::format("the aoe family has no \"{}\" multicast group: {}",
                                       AOE_GENL_MCGRP_EVENTS, nl_geterror(-NLE_OBJ_NOTFOUND)),
                           -NLE_OBJ_NOTFOUND);
    int grp = static_cast<int>(*g);
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
