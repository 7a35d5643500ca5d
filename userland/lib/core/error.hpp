// Typed errors of the aoekit library. Every message says what went wrong and,
// where there is something to do about it, what to do.
#pragma once

#include <stdexcept>
#include <string>

namespace aoe {

// Base of every error the library throws; tools map it to exit status 1.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The generic netlink family "aoe" is not registered: aoekit's module is not
// loaded ("aoe module not loaded: run modprobe aoe"), or the in-tree driver of
// the same name is (see netlink.hpp module_missing_error()).
class ModuleNotLoaded : public Error {
public:
    ModuleNotLoaded() : Error("aoe module not loaded: run modprobe aoe") {}
    explicit ModuleNotLoaded(const std::string& what) : Error(what) {}
};

// The kernel refused a command that needs CAP_NET_ADMIN.
class PermissionDenied : public Error {
public:
    explicit PermissionDenied(const std::string& what) : Error(what) {}
};

// A libnl call or a kernel reply failed; the message comes from nl_geterror.
class NetlinkError : public Error {
public:
    NetlinkError(const std::string& what, int nl_error) : Error(what), nl_error_(nl_error) {}
    int nl_error() const { return nl_error_; }

private:
    int nl_error_;
};

// A message from the kernel does not follow kmod/uapi/aoe_netlink.h.
class ParseError : public Error {
public:
    using Error::Error;
};

// aoe-discover --probe cannot run: no such interface, interface down,
// socket failure. aoe-discover --probe exits 2 for it.
class ProbeError : public Error {
public:
    using Error::Error;
};

// Opening an AF_PACKET socket was refused (EPERM): the probe needs CAP_NET_RAW.
class NeedsRawCapability : public ProbeError {
public:
    NeedsRawCapability() : ProbeError("needs CAP_NET_RAW (run as root)") {}
};

// Refused for safety: doing it would destroy something in use (aoe-ddt
// writing to a mounted disk without --force-mounted): exit 4.
class Refused : public Error {
public:
    using Error::Error;
};

// The command line is wrong (bad option, bad regular expression): exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace aoe
