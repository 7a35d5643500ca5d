// Generic netlink client for the aoe module (family "aoe", see
// kmod/uapi/aoe_netlink.h): RAII around libnl handles, requests, dumps and
// the "events" multicast group.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/model.hpp"

struct nl_sock;
struct nl_msg;
struct nl_cb;

namespace aoe {

namespace nl {

struct SockDeleter {
    void operator()(nl_sock* s) const noexcept;
};
struct MsgDeleter {
    void operator()(nl_msg* m) const noexcept;
};
struct CbDeleter {
    void operator()(nl_cb* c) const noexcept;
};
using SockPtr = std::unique_ptr<nl_sock, SockDeleter>;
using MsgPtr = std::unique_ptr<nl_msg, MsgDeleter>;
using CbPtr = std::unique_ptr<nl_cb, CbDeleter>;

// Allocators that throw NetlinkError instead of returning null.
SockPtr make_sock();
MsgPtr make_msg();
CbPtr make_cb();

// "<what>: <nl_geterror(err)>"
std::string error_text(const std::string& what, int err);

// Throws the error for a failed request: PermissionDenied when the kernel
// said EPERM ("permission denied: <action> needs CAP_NET_ADMIN (run as
// root)"), NetlinkError "<action> failed: <nl_geterror> (<extack>)"
// otherwise. nl_err is the negative libnl error, sys_errno the kernel's
// errno (or 0), extack the kernel's extended-ack message (or empty).
[[noreturn]] void throw_request_error(const std::string& action, int nl_err, int sys_errno,
                                      const std::string& extack = {});

// Checks an nla_put_*() result while building a request: throws
// NetlinkError "cannot add ATTR to a request: <nl_geterror>" when err < 0.
void put_attr(int err, const char* attr);

// The NLMSGERR_ATTR_MSG text of an NLMSG_ERROR message with extended-ack
// TLVs (NETLINK_EXT_ACK), or "" when there is none.
std::string extack_message(const struct nlmsghdr* err_msg);

// A generic netlink family as the controller lists it.
struct Family {
    int id = -1;
    std::vector<std::pair<std::string, uint32_t>> groups;  // multicast name, id
    std::optional<uint32_t> group(const std::string& name) const;
};

// The family in one CTRL_CMD_NEWFAMILY message if it is called `name`,
// nullopt for another family (exposed for the unit tests). Throws ParseError
// for a message without a name or id.
std::optional<Family> parse_family(const struct nlmsghdr* nlh, const std::string& name);

// Looks `name` up in a CTRL_CMD_GETFAMILY dump. Unlike genl_ctrl_resolve()
// (a GETFAMILY by name), a dump never makes the kernel request_module()
// "net-pf-16-proto-16-family-NAME", so looking does not load aoe.ko.
// nullopt when the family is not registered.
std::optional<Family> find_family(nl_sock* sk, const std::string& name);

}  // namespace nl

// Why the "aoe" family is missing, as the error to throw: "the in-tree aoe
// driver is loaded: rmmod aoe && modprobe aoe from aoekit" when a module
// called aoe is live under sys_module (that is the in-tree driver: aoekit's
// registers the family before it goes live), "aoe module not loaded: run
// modprobe aoe" otherwise.
ModuleNotLoaded module_missing_error(const std::string& sys_module = "/sys/module");

// Request builders (exposed for the unit tests).
nl::MsgPtr build_request(int family, uint8_t cmd, int flags);
nl::MsgPtr build_get_targets(int family);  // dump
nl::MsgPtr build_get_target(int family, uint16_t shelf, uint8_t slot);
// netns_fd: a network namespace's file descriptor (AOE_A_NETNS_FD): its
// interface list and interfaces instead of the initial namespace's.
nl::MsgPtr build_get_info(int family, std::optional<int> netns_fd = std::nullopt);
nl::MsgPtr build_discover(int family, const std::optional<std::string>& ifname);

// Whether connecting may load aoe.ko. Read-only tools (aoe-stat, aoe-top,
// bash completion, the Prometheus timer) never do; tools that change state
// (aoe-discover, aoe-flush, aoe-revalidate, aoe-interfaces set) may, as a
// genl_ctrl_resolve() would (the module's MODULE_ALIAS_GENL_FAMILY).
enum class Autoload { kNo, kYes };

// One request socket connected to the "aoe" family.
class Client {
public:
    // Throws ModuleNotLoaded (module_missing_error()) when the family is not
    // registered (after loading it, with Autoload::kYes).
    explicit Client(Autoload autoload = Autoload::kNo);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    int family() const { return family_; }

    // Every known target (a dump; retried when the table changes meanwhile).
    std::vector<Target> get_targets();
    // One target, or nullopt when the module does not know it (read from the
    // dump, so a small receive buffer works too).
    std::optional<Target> get_target(uint16_t shelf, uint8_t slot);
    ModuleInfo get_info(std::optional<int> netns_fd = std::nullopt);
    // Broadcasts a Query Config (needs CAP_NET_ADMIN), on ifname only if given.
    void discover(const std::optional<std::string>& ifname = std::nullopt);
    // Sends a request that changes state and waits for the kernel's ack;
    // throws PermissionDenied / NetlinkError naming `action` on failure.
    void command(nl_msg* msg, const std::string& action);

private:
    struct Reply {
        int nl_err;     // 0 or a negative libnl error
        int sys_errno;  // errno from an NLMSG_ERROR, or 0
        bool interrupted;  // a dump message carried NLM_F_DUMP_INTR
        std::string extack;  // the kernel's explanation of an error, if any
    };
    Reply transact(nl_msg* msg, const std::function<void(struct nlmsghdr*)>& on_msg);

    nl::SockPtr sock_;
    nl::CbPtr cb_;
    int family_ = -1;
};

// A socket subscribed to the "events" multicast group.
class EventListener {
public:
    // Never loads the module. Throws ModuleNotLoaded as Client does.
    EventListener();
    ~EventListener();
    EventListener(const EventListener&) = delete;
    EventListener& operator=(const EventListener&) = delete;

    int fd() const;

    // Calls on_event for each event until deadline; poll() on the socket, no
    // busy loop. Returns false as soon as on_event returns false, true when
    // the deadline passed. Events already queued are delivered also when the
    // deadline has passed (deadline = now: only those). Malformed events and
    // events this build does not know are logged and skipped.
    bool wait_events(std::chrono::steady_clock::time_point deadline,
                     const std::function<bool(const Event&)>& on_event);

private:
    nl::SockPtr sock_;
    nl::CbPtr cb_;
};

}  // namespace aoe
