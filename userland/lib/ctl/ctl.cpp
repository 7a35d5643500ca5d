#include "ctl/ctl.hpp"

#include <fmt/format.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "core/cli.hpp"
#include "core/error.hpp"

namespace aoe::ctl {

const char* status_name(Status s)
{
    switch (s) {
    case Status::answered:
        return "answered";
    case Status::error:
        return "error";
    case Status::timeout:
        return "timeout";
    case Status::too_big:
        return "too_big";
    case Status::no_device:
        return "no_device";
    }
    return "unknown";
}

Status status_from_uapi(uint32_t s)
{
    switch (s) {
    case AOE_CTL_STATUS_ANSWERED:
        return Status::answered;
    case AOE_CTL_STATUS_ERROR:
        return Status::error;
    case AOE_CTL_STATUS_TOO_BIG:
        return Status::too_big;
    case AOE_CTL_STATUS_NO_DEVICE:
        return Status::no_device;
    default:
        return Status::timeout;
    }
}

Mac parse_mac(const std::string& text)
{
    std::string hex;
    for (char c : text) {
        if (c == ':' || c == '-')
            continue;
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            throw UsageError(fmt::format("'{}' is not a MAC address (want 00:11:22:33:44:55)", text));
        hex += c;
    }
    if (hex.size() != 12)
        throw UsageError(fmt::format("'{}' is not a MAC address (want 00:11:22:33:44:55)", text));
    Mac m{};
    for (size_t i = 0; i < 6; i++)
        m[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    if (m[0] & 1)
        throw UsageError(fmt::format("{} is a multicast address, not an initiator's", text));
    if (m == Mac{})
        throw UsageError(fmt::format("{} is the zero address", text));
    return m;
}

std::vector<uint8_t> config_data(const std::string& s)
{
    if (s.size() > AOE_CONFIG_MAXLEN)
        throw UsageError(fmt::format("the config string has {} bytes; AoE allows at most {}",
                                     s.size(), AOE_CONFIG_MAXLEN));
    return {s.begin(), s.end()};
}

std::vector<uint8_t> mac_data(const std::vector<Mac>& macs)
{
    if (macs.size() > 255)
        throw UsageError(fmt::format("{} MACs: a request carries at most 255", macs.size()));
    std::vector<uint8_t> out;
    for (const auto& m : macs)
        out.insert(out.end(), m.begin(), m.end());
    return out;
}

std::vector<uint8_t> mask_directives(const std::vector<Edit>& edits)
{
    std::vector<uint8_t> out(edits.size() * AOE_MASK_DIR_LEN);
    for (size_t i = 0; i < edits.size(); i++)
        aoe_mask_dir(&out[i * AOE_MASK_DIR_LEN], edits[i].first, edits[i].second.data());
    return out;
}

std::vector<Edit> mask_set_edits(const std::vector<Mac>& current, const std::vector<Mac>& wanted)
{
    std::vector<Edit> out;
    for (const auto& m : current)
        if (std::find(wanted.begin(), wanted.end(), m) == wanted.end())
            out.emplace_back(AOE_DCMD_DEL, m);
    std::vector<Mac> added;
    for (const auto& m : wanted)
        if (std::find(current.begin(), current.end(), m) == current.end() &&
            std::find(added.begin(), added.end(), m) == added.end()) {
            out.emplace_back(AOE_DCMD_ADD, m);
            added.push_back(m);
        }
    return out;
}

void check_edits(const std::vector<Edit>& edits)
{
    // 28 + 8 n - 14 <= 1500 -> n <= 185
    constexpr size_t kMax = (1500 + AOE_ETH_HLEN - AOE_MASK_HDR_LEN) / AOE_MASK_DIR_LEN;
    if (edits.size() > kMax)
        throw UsageError(fmt::format("{} mask edits: one frame on a 1500-byte MTU carries at "
                                     "most {}; edit in steps",
                                     edits.size(), kMax));
}

namespace {

void put(int err, const char* what)
{
    if (err < 0)
        throw NetlinkError(nl::error_text(fmt::format("cannot add {} to a request", what), err),
                           err);
}

Mac get_mac(nlattr* a, const char* what)
{
    if (nla_len(a) != 6)
        throw ParseError(fmt::format("{} is {} bytes, not 6", what, nla_len(a)));
    Mac m{};
    std::memcpy(m.data(), nla_data(a), 6);
    return m;
}

}  // namespace

nl::MsgPtr build_ctl(int family, const Request& req, uint32_t cookie)
{
    nl::MsgPtr msg = build_request(family, AOE_CMD_CTL, 0);
    nl_msg* m = msg.get();
    put(nla_put_u16(m, AOE_A_SHELF, req.shelf), "AOE_A_SHELF");
    put(nla_put_u8(m, AOE_A_SLOT, req.slot), "AOE_A_SLOT");
    put(nla_put_u8(m, AOE_A_CTL_CMD, req.cmd), "AOE_A_CTL_CMD");
    put(nla_put_u8(m, AOE_A_CTL_SUBCMD, req.sub), "AOE_A_CTL_SUBCMD");
    if (!req.data.empty())
        put(nla_put(m, AOE_A_CTL_DATA, static_cast<int>(req.data.size()), req.data.data()),
            "AOE_A_CTL_DATA");
    put(nla_put_u32(m, AOE_A_CTL_COOKIE, cookie), "AOE_A_CTL_COOKIE");
    auto ms = std::clamp<int64_t>(req.timeout.count(), AOE_CTL_TIMEOUT_MS_MIN,
                                  AOE_CTL_TIMEOUT_MS_MAX);
    put(nla_put_u32(m, AOE_A_CTL_TIMEOUT_MS, static_cast<uint32_t>(ms)), "AOE_A_CTL_TIMEOUT_MS");
    return msg;
}

CtlMessage parse_ctl_message(const nlmsghdr* cnlh)
{
    auto* nlh = const_cast<nlmsghdr*>(cnlh);
    if (!genlmsg_valid_hdr(nlh, 0))
        throw ParseError("control reply too short for a generic netlink header");
    CtlMessage out;
    out.cmd = static_cast<genlmsghdr*>(nlmsg_data(nlh))->cmd;
    nlattr* tb[AOE_A_MAX + 1] = {};
    int err = genlmsg_parse(nlh, 0, tb, AOE_A_MAX, nullptr);
    if (err < 0)
        throw ParseError(fmt::format("invalid control reply: {}", nl_geterror(err)));
    auto u32 = [](nlattr* a) {
        if (nla_len(a) < 4)
            throw ParseError("a 32-bit attribute is too short");
        return nla_get_u32(a);
    };
    if (!tb[AOE_A_CTL_COOKIE] || !tb[AOE_A_PATH_COUNT])
        throw ParseError("control reply without a cookie or path count");
    out.cookie = u32(tb[AOE_A_CTL_COOKIE]);
    out.count = u32(tb[AOE_A_PATH_COUNT]);
    if (out.cmd != AOE_CMD_CTL_RESULT)
        return out;
    if (!tb[AOE_A_CTL_RESULT])
        throw ParseError("control result without AOE_A_CTL_RESULT");
    nlattr* r[AOE_CTL_A_MAX + 1] = {};
    err = nla_parse_nested(r, AOE_CTL_A_MAX, tb[AOE_A_CTL_RESULT], nullptr);
    if (err < 0)
        throw ParseError(fmt::format("invalid control result: {}", nl_geterror(err)));
    if (!r[AOE_CTL_A_INDEX] || !r[AOE_CTL_A_STATUS])
        throw ParseError("control result without index or status");
    PathAnswer& a = out.answer;
    out.index = u32(r[AOE_CTL_A_INDEX]);
    if (*out.index >= out.count)
        throw ParseError(fmt::format("control result {} of {}", *out.index, out.count));
    a.status = status_from_uapi(u32(r[AOE_CTL_A_STATUS]));
    if (r[AOE_CTL_A_IFINDEX])
        a.ifindex = u32(r[AOE_CTL_A_IFINDEX]);
    if (r[AOE_CTL_A_IFNAME]) {
        const char* s = static_cast<const char*>(nla_data(r[AOE_CTL_A_IFNAME]));
        a.ifname.assign(s, strnlen(s, static_cast<size_t>(nla_len(r[AOE_CTL_A_IFNAME]))));
    }
    if (r[AOE_CTL_A_SRC_MAC])
        a.src = get_mac(r[AOE_CTL_A_SRC_MAC], "AOE_CTL_A_SRC_MAC");
    if (r[AOE_CTL_A_DST_MAC])
        a.dst = get_mac(r[AOE_CTL_A_DST_MAC], "AOE_CTL_A_DST_MAC");
    if (r[AOE_CTL_A_AOE_ERROR])
        a.aoe_error = nla_get_u8(r[AOE_CTL_A_AOE_ERROR]);
    if (r[AOE_CTL_A_TRIES])
        a.tries = u32(r[AOE_CTL_A_TRIES]);
    if (r[AOE_CTL_A_RTT_US])
        a.rtt_us = u32(r[AOE_CTL_A_RTT_US]);
    if (r[AOE_CTL_A_BUFCNT])
        a.bufcnt = nla_get_u16(r[AOE_CTL_A_BUFCNT]);
    if (r[AOE_CTL_A_FWVER])
        a.fwver = nla_get_u16(r[AOE_CTL_A_FWVER]);
    if (r[AOE_CTL_A_MAXSECT])
        a.maxsect = nla_get_u8(r[AOE_CTL_A_MAXSECT]);
    if (r[AOE_CTL_A_AOEVER])
        a.aoever = nla_get_u8(r[AOE_CTL_A_AOEVER]);
    if (r[AOE_CTL_A_CONFIG]) {
        int n = nla_len(r[AOE_CTL_A_CONFIG]);
        if (n > AOE_CONFIG_MAXLEN)
            throw ParseError(fmt::format("config string of {} bytes", n));
        a.config.emplace(static_cast<const char*>(nla_data(r[AOE_CTL_A_CONFIG])),
                         static_cast<size_t>(n));
    }
    if (r[AOE_CTL_A_MERROR])
        a.merror = nla_get_u8(r[AOE_CTL_A_MERROR]);
    if (r[AOE_CTL_A_COUNT])
        a.count = u32(r[AOE_CTL_A_COUNT]);
    if (r[AOE_CTL_A_MACS]) {
        int n = nla_len(r[AOE_CTL_A_MACS]);
        if (n % 6 || n / 6 > 255)
            throw ParseError(fmt::format("MAC list of {} bytes", n));
        const auto* p = static_cast<const uint8_t*>(nla_data(r[AOE_CTL_A_MACS]));
        for (int i = 0; i < n; i += 6) {
            Mac m{};
            std::memcpy(m.data(), p + i, 6);
            a.macs.push_back(m);
        }
    }
    return out;
}

std::string mac_list(const std::vector<Mac>& macs)
{
    if (macs.empty())
        return "none";
    std::vector<std::string> s;
    for (const auto& m : macs)
        s.push_back(format_mac(m));
    return fmt::format("{}", fmt::join(s, ", "));
}

std::string command_name(uint8_t cmd, uint8_t sub)
{
    static const char* cfg[] = {"read", "test", "prefix-test", "set", "force-set"};
    static const char* mask[] = {"read", "edit"};
    static const char* resv[] = {"read", "reserve", "force-reserve"};
    switch (cmd) {
    case AOE_CMD_CFG:
        return fmt::format("config {}", sub < 5 ? cfg[sub] : "?");
    case AOE_CMD_MASK:
        return fmt::format("mask {}", sub < 2 ? mask[sub] : "?");
    case AOE_CMD_RESERVE:
        return fmt::format("reserve {}", sub < 3 ? resv[sub] : "?");
    }
    return fmt::format("command {}", cmd);
}

bool path_ok(const Request& req, const PathAnswer& a)
{
    if (a.status != Status::answered)
        return false;
    return !(req.cmd == AOE_CMD_MASK && a.merror);
}

std::string describe(const Request& req, const PathAnswer& a)
{
    switch (a.status) {
    case Status::answered:
        if (req.cmd == AOE_CMD_MASK && a.merror)
            return fmt::format("{} at directive {}", aoe_merror_text(a.merror), a.count + 1);
        if (req.cmd == AOE_CMD_CFG &&
            (req.sub == AOE_CCMD_TEST || req.sub == AOE_CCMD_PTEST))
            return "matches";
        return "ok";
    case Status::error:
        if (a.aoe_error == AOE_ERR_CFG_SET)
            return "config string present (set refused: --force-set replaces it)";
        if (a.aoe_error == AOE_ERR_RESERVED)
            return "target reserved by another initiator (--force takes it over)";
        return fmt::format("AoE error {}: {}", a.aoe_error, aoe_error_text(a.aoe_error));
    case Status::timeout:
        if (req.cmd == AOE_CMD_CFG && (req.sub == AOE_CCMD_TEST || req.sub == AOE_CCMD_PTEST))
            return "no match (the target does not answer a test whose string differs)";
        return fmt::format("no answer after {} tries (masked out, or the target is down)",
                           a.tries);
    case Status::too_big:
        return "the request is larger than this path's MTU";
    case Status::no_device:
        return "the local interface is gone or down";
    }
    return "?";
}

namespace {

std::string payload_text(const Request& req, const PathAnswer& a)
{
    if (a.status != Status::answered && !(a.status == Status::error && a.config))
        return {};
    switch (req.cmd) {
    case AOE_CMD_CFG:
        return fmt::format(" config \"{}\"", printable(a.config.value_or("")));
    case AOE_CMD_MASK:
        return a.merror ? std::string() : fmt::format(" mask {}", mac_list(a.macs));
    case AOE_CMD_RESERVE:
        return fmt::format(" reserved {}", a.macs.empty() ? "by nobody" : mac_list(a.macs));
    }
    return {};
}

}  // namespace

std::string format_text(const Request& req, const Result& r)
{
    std::string out;
    std::string dev = device_name(r.shelf, r.slot);
    for (const auto& a : r.paths) {
        out += fmt::format("{} {} -> {}: {}{}", dev, a.ifname, format_mac(a.dst), describe(req, a),
                           payload_text(req, a));
        if (a.rtt_us)
            out += fmt::format(" ({} us)", *a.rtt_us);
        out += '\n';
    }
    return out;
}

Json path_json(const Request& req, const PathAnswer& a)
{
    Json j;
    j["interface"] = a.ifname;
    j["local_mac"] = format_mac(a.src);
    j["target_mac"] = format_mac(a.dst);
    j["status"] = status_name(a.status);
    j["ok"] = path_ok(req, a);
    j["message"] = describe(req, a);
    j["aoe_error"] = a.status == Status::error ? Json(a.aoe_error) : Json(nullptr);
    j["tries"] = a.tries;
    j["rtt_us"] = a.rtt_us ? Json(*a.rtt_us) : Json(nullptr);
    bool answered = a.status == Status::answered || a.status == Status::error;
    if (req.cmd == AOE_CMD_CFG && answered) {
        j["bufcnt"] = a.bufcnt;
        j["fwver"] = format_fwver(a.fwver);
        j["maxsect"] = a.maxsect;
        j["config"] = a.config ? Json(printable(*a.config)) : Json(nullptr);
    }
    if (req.cmd != AOE_CMD_CFG && answered) {
        std::vector<std::string> macs;
        for (const auto& m : a.macs)
            macs.push_back(format_mac(m));
        if (req.cmd == AOE_CMD_MASK) {
            j["mask_error"] = a.merror ? Json(aoe_merror_text(a.merror)) : Json(nullptr);
            j["mask"] = macs;
        } else {
            j["reserved"] = macs;
        }
    }
    return j;
}

Json to_json(const Request& req, const Result& r)
{
    Json j;
    j["device"] = device_name(r.shelf, r.slot);
    j["via"] = r.via;
    j["command"] = command_name(req.cmd, req.sub);
    Json paths = Json::array();
    for (const auto& a : r.paths)
        paths.push_back(path_json(req, a));
    j["paths"] = paths;
    return j;
}

std::vector<PortOutcome> reserve_outcomes(const Result& readback, const std::vector<Mac>& wanted)
{
    std::vector<PortOutcome> out;
    auto same = [&](std::vector<Mac> a) {
        std::vector<Mac> b = wanted;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        return a == b;
    };
    for (const auto& a : readback.paths) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const PortOutcome& o) { return o.port == a.dst; });
        bool took = a.status == Status::answered && same(a.macs);
        std::string why;
        if (a.status != Status::answered)
            why = fmt::format("read back: {}", status_name(a.status));
        else if (!took)
            why = fmt::format("reserved by {}", a.macs.empty() ? "nobody" : mac_list(a.macs));
        if (it == out.end()) {
            out.push_back({a.dst, a.ifname, took, why});
        } else if (!it->took && took) {  // one path of the port read it back
            it->took = true;
            it->why.clear();
            it->ifname = a.ifname;
        }
    }
    return out;
}

int change_exit_status(const std::vector<bool>& took)
{
    size_t n = static_cast<size_t>(std::count(took.begin(), took.end(), true));
    if (!took.empty() && n == took.size())
        return cli::kOk;
    return n ? cli::kProblems : cli::kFailure;
}

RttStats rtt_stats(const std::vector<std::optional<uint32_t>>& samples)
{
    RttStats s;
    double sum = 0;
    for (const auto& v : samples) {
        s.sent++;
        if (!v)
            continue;
        s.received++;
        sum += *v;
        s.min_us = s.min_us ? std::min(*s.min_us, *v) : *v;
        s.max_us = s.max_us ? std::max(*s.max_us, *v) : *v;
    }
    if (s.received)
        s.avg_us = sum / s.received;
    return s;
}

void ping_add(PingReport& rep, const Result& round)
{
    rep.via = round.via;
    for (const auto& a : round.paths) {
        auto it = std::find_if(rep.paths.begin(), rep.paths.end(), [&](const PingPath& p) {
            return p.ifname == a.ifname && p.dst == a.dst;
        });
        if (it == rep.paths.end()) {
            PingPath p;
            p.ifname = a.ifname;
            p.src = a.src;
            p.dst = a.dst;
            p.samples.assign(rep.probes, std::nullopt);
            rep.paths.push_back(std::move(p));
            it = rep.paths.end() - 1;
        }
        if (a.status == Status::answered) {
            it->samples.push_back(a.rtt_us);
            it->bufcnt = a.bufcnt;
            it->fwver = a.fwver;
            it->maxsect = a.maxsect;
            it->config = a.config;
        } else {
            it->samples.push_back(std::nullopt);
        }
    }
    rep.probes++;
    for (auto& p : rep.paths)  // paths this round did not list: lost
        p.samples.resize(rep.probes, std::nullopt);
}

PingIdentity identity_from(const aoe_identity& id)
{
    PingIdentity p;
    p.model = id.model;
    p.serial = id.serial;
    p.firmware = id.firmware;
    p.sectors = id.sectors;
    p.lba48 = id.lba48;
    p.write_cache = id.wcache;
    p.flush_ext = id.flush_ext;
    return p;
}

std::optional<PingIdentity> identity_from(const Target& t)
{
    if (!t.sectors || !*t.sectors)
        return std::nullopt;
    PingIdentity p;
    p.model = t.model.value_or("");
    p.serial = t.serial.value_or("");
    p.firmware = t.firmware.value_or("");
    p.sectors = *t.sectors;
    p.lba48 = t.lba48;
    if (t.cache) {
        p.write_cache = (*t.cache & AOE_CACHE_ENABLED) != 0;
        p.flush_ext = (*t.cache & AOE_CACHE_FLUSH_EXT) != 0;
    }
    return p;
}

namespace {

std::string yes_no(const std::optional<bool>& b)
{
    return b ? (*b ? "yes" : "no") : "-";
}

}  // namespace

std::string ping_text(const PingReport& rep)
{
    std::string dev = device_name(rep.shelf, rep.slot);
    std::string out;
    const PingPath* any = nullptr;
    for (const auto& p : rep.paths)
        if (p.config)
            any = &p;
    if (any)
        out += fmt::format("{}: config \"{}\" firmware {} bufcnt {} sectors/frame {}\n", dev,
                           printable(*any->config), format_fwver(any->fwver), any->bufcnt,
                           any->maxsect ? any->maxsect : 2);
    else
        out += fmt::format("{}: no Query Config answer\n", dev);
    if (rep.id)
        out += fmt::format("{}: model \"{}\" serial \"{}\" firmware \"{}\" size {} sectors ({} "
                           "bytes) lba48 {} write_cache {} flush_ext {}\n",
                           dev, printable(rep.id->model), printable(rep.id->serial),
                           printable(rep.id->firmware), rep.id->sectors, rep.id->sectors * 512,
                           rep.id->lba48 ? "yes" : "no", yes_no(rep.id->write_cache),
                           yes_no(rep.id->flush_ext));
    else
        out += fmt::format("{}: no IDENTIFY answer\n", dev);
    for (const auto& p : rep.paths) {
        RttStats s = rtt_stats(p.samples);
        out += fmt::format("{} {} -> {}: {}/{} answered", dev, p.ifname, format_mac(p.dst),
                           s.received, s.sent);
        if (s.received)
            out += fmt::format(", rtt min/avg/max {}/{:.1f}/{} us", *s.min_us, *s.avg_us,
                               *s.max_us);
        out += '\n';
    }
    return out;
}

Json ping_json(const PingReport& rep)
{
    Json j;
    j["device"] = device_name(rep.shelf, rep.slot);
    j["via"] = rep.via;
    j["probes"] = rep.probes;
    if (rep.id) {
        Json i;
        i["model"] = rep.id->model;
        i["serial"] = rep.id->serial;
        i["firmware"] = rep.id->firmware;
        i["sectors"] = rep.id->sectors;
        i["bytes"] = rep.id->sectors * 512;
        i["lba48"] = rep.id->lba48;
        i["write_cache"] = rep.id->write_cache ? Json(*rep.id->write_cache) : Json(nullptr);
        i["flush_ext"] = rep.id->flush_ext ? Json(*rep.id->flush_ext) : Json(nullptr);
        j["identify"] = i;
    } else {
        j["identify"] = nullptr;
    }
    Json paths = Json::array();
    for (const auto& p : rep.paths) {
        RttStats s = rtt_stats(p.samples);
        Json q;
        q["interface"] = p.ifname;
        q["local_mac"] = format_mac(p.src);
        q["target_mac"] = format_mac(p.dst);
        q["sent"] = s.sent;
        q["received"] = s.received;
        q["rtt_min_us"] = s.min_us ? Json(*s.min_us) : Json(nullptr);
        q["rtt_avg_us"] = s.avg_us ? Json(*s.avg_us) : Json(nullptr);
        q["rtt_max_us"] = s.max_us ? Json(*s.max_us) : Json(nullptr);
        q["config"] = p.config ? Json(printable(*p.config)) : Json(nullptr);
        q["bufcnt"] = p.config ? Json(p.bufcnt) : Json(nullptr);
        q["fwver"] = p.config ? Json(format_fwver(p.fwver)) : Json(nullptr);
        q["maxsect"] = p.config ? Json(p.maxsect) : Json(nullptr);
        paths.push_back(q);
    }
    j["paths"] = paths;
    return j;
}

int ping_exit_status(const PingReport& rep)
{
    uint32_t sent = 0, got = 0;
    for (const auto& p : rep.paths) {
        RttStats s = rtt_stats(p.samples);
        sent += s.sent;
        got += s.received;
    }
    if (!got)
        return cli::kFailure;
    return got == sent ? cli::kOk : cli::kProblems;
}

}  // namespace aoe::ctl
