// The network part of the control tools: a control request sent through
// the aoe module (AOE_CMD_CTL: its paths, its tags; results arrive
// asynchronously and are matched by a cookie, within the tool's own
// deadline), or, when the module is not loaded (or --raw), over raw
// AF_PACKET sockets: a Query Config to the target's address on each
// interface finds its ports, then the request goes to each path with
// userland tags (bit 31 set, which a loaded module ignores), sent again
// every 500 ms with a fresh tag until answered or the deadline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aoe_codec.h"
#include "ctl/ctl.hpp"

namespace aoe::ctl {

struct NetOptions {
    bool raw = false;                 // raw sockets even with the module loaded
    std::vector<std::string> interfaces;  // raw: these (default: every up Ethernet one)
};

// Through the module, or raw when it is not loaded or opts.raw. Throws
// PermissionDenied, ModuleNotLoaded (never: falls back), NeedsRawCapability,
// Error with what to do (e.g. "no such target").
Result run(const Request& req, const NetOptions& opts);
Result run_module(const Request& req);
Result run_raw(const Request& req, const NetOptions& opts);

// Is the module loaded (its netlink family registered)?
bool module_loaded();

// aoe-ping over raw sockets: ATA IDENTIFY DEVICE over the first path that
// answers (nullopt when none does within the timeout).
std::optional<aoe_identity> raw_identify(uint16_t shelf, uint8_t slot, const NetOptions& opts,
                                         std::chrono::milliseconds timeout);

}  // namespace aoe::ctl
