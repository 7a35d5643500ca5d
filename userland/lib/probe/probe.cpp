#include "probe/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "aoe_netlink.h"
#include "core/cli.hpp"
#include "core/error.hpp"

namespace aoe::probe {

namespace {

constexpr uint32_t kJumboMtu = 9000;
constexpr uint32_t kStandardMtu = 1500;

// The MTU that gives a payload of n sectors: 36 + 512 n.
uint32_t mtu_for_sectors(uint32_t n)
{
    return AOE_ATA_HDR_LEN + AOE_SECTOR_SIZE * n;
}

// The sectors an MTU carries: (MTU - 36) / 512.
uint32_t sectors_for_mtu(uint32_t mtu)
{
    return mtu >= AOE_ATA_HDR_LEN ? (mtu - AOE_ATA_HDR_LEN) / AOE_SECTOR_SIZE : 0;
}

// The MTU to advise for a path to carry n sectors: the standard values that
// interfaces and switches really offer, 1500 when it fits n sectors, else
// the jumbo 9000 (which carries 17, the most a 9000-byte frame holds).
uint32_t mtu_to_raise_to(uint32_t n)
{
    return mtu_for_sectors(n) <= kStandardMtu ? kStandardMtu : kJumboMtu;
}

// The MTU to set so that a path carries `payload` bytes per frame and no
// more: 1500 where that already gives it (the usual Ethernet value), else
// 36 + payload.
uint32_t mtu_to_lower_to(uint32_t payload)
{
    uint32_t m = AOE_ATA_HDR_LEN + payload;
    if (m < kStandardMtu && aoe_payload_for_mtu(kStandardMtu, 255, 0) <= payload)
        return kStandardMtu;
    return m;
}

std::string ip_mtu(const std::string& ifname, uint32_t mtu)
{
    return fmt::format("ip link set {} mtu {}", ifname, mtu);
}

}  // namespace

std::vector<Interface> select_interfaces(const std::vector<Interface>& all,
                                         const std::vector<std::string>& names)
{
    std::vector<Interface> out;
    if (names.empty()) {
        std::vector<std::string> no_carrier;
        for (const auto& i : all)
            if (i.up && i.ethernet && !i.enslaved)
                (i.carrier ? out.push_back(i) : no_carrier.push_back(i.name));
        std::sort(out.begin(), out.end(),
                  [](const Interface& a, const Interface& b) { return a.name < b.name; });
        if (out.empty() && !no_carrier.empty())
            throw ProbeError(fmt::format("no Ethernet interface has a link: {} {} up but "
                                         "{} no carrier (check the cable, the switch port "
                                         "or the other end)",
                                         fmt::join(no_carrier, ", "),
                                         no_carrier.size() == 1 ? "is" : "are",
                                         no_carrier.size() == 1 ? "has" : "have"));
        if (out.empty())
            throw ProbeError("no Ethernet interface is up: name one, or bring one up "
                             "(ip link set IFACE up)");
        return out;
    }
    std::set<std::string> seen;
    for (const auto& n : names) {
        if (!seen.insert(n).second)
            continue;
        auto it = std::find_if(all.begin(), all.end(),
                               [&](const Interface& i) { return i.name == n; });
        if (it == all.end())
            throw ProbeError(fmt::format("no interface {} (see ip link)", n));
        if (!it->ethernet)
            throw ProbeError(fmt::format("{} is not an Ethernet interface", n));
        if (!it->up)
            throw ProbeError(fmt::format("{} is down: ip link set {} up", n, n));
        if (!it->carrier)
            throw ProbeError(fmt::format("{} is up but has no carrier (no link: check the "
                                         "cable, the switch port or the other end)",
                                         n));
        out.push_back(*it);
    }
    return out;
}

const char* outcome_name(Outcome o)
{
    switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::dropped: return "dropped";
    case Outcome::no_reply: return "no_reply";
    case Outcome::ata_error: return "ata_error";
    case Outcome::timed_out: return "not_measured";
    case Outcome::no_room: return "no_room";
    }
    return "unknown";
}

const char* severity_name(Severity s)
{
    return s == Severity::error ? "error" : "warning";
}

std::vector<TargetResult> group_answers(const std::vector<ConfigAnswer>& answers,
                                        const std::vector<Interface>& ifaces)
{
    std::map<std::pair<uint16_t, uint8_t>, TargetResult> by_addr;
    std::set<std::tuple<uint16_t, uint8_t, std::string, Mac>> seen;
    for (const auto& a : answers) {
        if (!seen.insert({a.shelf, a.slot, a.ifname, a.mac}).second)
            continue;
        auto [it, fresh] = by_addr.try_emplace({a.shelf, a.slot});
        TargetResult& t = it->second;
        if (fresh) {
            t.shelf = a.shelf;
            t.slot = a.slot;
            t.config = a.config;
        }
        PathResult p;
        p.ifname = a.ifname;
        p.mac = a.mac;
        p.bufcnt = a.bufcnt;
        p.fwver = a.fwver;
        p.maxsect = a.maxsect;
        auto i = std::find_if(ifaces.begin(), ifaces.end(),
                              [&](const Interface& x) { return x.name == a.ifname; });
        p.mtu = i == ifaces.end() ? 0 : i->mtu;
        p.payload_expected = aoe_payload_for_mtu(p.mtu, p.maxsect, 0);
        p.outcome = p.payload_expected ? Outcome::timed_out : Outcome::no_room;
        t.paths.push_back(std::move(p));
    }
    std::vector<TargetResult> out;
    for (auto& [addr, t] : by_addr) {
        std::sort(t.paths.begin(), t.paths.end(), [](const PathResult& a, const PathResult& b) {
            return std::tie(a.ifname, a.mac) < std::tie(b.ifname, b.mac);
        });
        out.push_back(std::move(t));
    }
    return out;
}

Match match_response(const uint8_t* buf, size_t len, const Request& req, aoe_frame& f)
{
    int rc = aoe_decode_response(buf, len, len, &f);
    if (rc != 0 && rc != -AOE_DROP_ERROR)
        return Match::other;
    if (!aoe_tag_is_user(f.tag) || f.tag != req.tag || f.cmd != req.cmd)
        return Match::other;
    if (!req.broadcast) {
        Mac src;
        std::copy(std::begin(f.src), std::end(f.src), src.begin());
        if (f.shelf != req.shelf || f.slot != req.slot || src != req.mac)
            return Match::other;
    }
    if (rc == -AOE_DROP_ERROR)
        return Match::ata_error;
    if (f.cmd == AOE_CMD_ATA) {
        if (f.ata.status & AOE_ATA_STATUS_BAD)
            return Match::ata_error;
        if (f.ata.datalen < size_t{req.sectors} * AOE_SECTOR_SIZE)
            return Match::short_data;
    }
    return Match::answer;
}

TagSource::TagSource(uint32_t seed) : base_(AOE_TAG_USER | (seed & 0x7fffu) << 16) {}

uint32_t TagSource::next()
{
    return base_ | seq_++;
}

std::vector<Advice> advise(const std::vector<TargetResult>& targets)
{
    std::vector<Advice> out;
    auto add = [&](Severity sev, const char* kind, const TargetResult& t, const std::string& ifname,
                   std::string message, std::string command) {
        out.push_back({sev, kind, t.device(), ifname, std::move(message), std::move(command)});
    };
    for (const auto& t : targets) {
        const std::string dev = t.device();
        std::set<std::string> mtu_advised;  // one MTU advice per local interface
        for (const auto& p : t.paths) {
            const unsigned scnt = effective_scnt(p.maxsect);
            const uint32_t local_sectors = sectors_for_mtu(p.mtu);
            const uint32_t want_mtu = mtu_to_raise_to(scnt);
            const std::string path = fmt::format("{} -> {}", p.ifname, format_mac(p.mac));

            if (p.outcome == Outcome::no_room) {
                add(Severity::error, "no_room", t, p.ifname,
                    fmt::format("{}: the MTU of {} ({}) cannot carry one 512-byte sector; "
                                "AoE needs at least {}",
                                dev, p.ifname, p.mtu, mtu_for_sectors(1)),
                    ip_mtu(p.ifname, want_mtu));
                mtu_advised.insert(p.ifname);
            } else if (p.mtu < want_mtu &&
                       local_sectors < std::min<uint32_t>(scnt, sectors_for_mtu(want_mtu)) &&
                       !mtu_advised.count(p.ifname)) {
                add(Severity::warning, "mtu_low", t, p.ifname,
                    fmt::format("{}: the target takes {} sectors ({} bytes) per frame, but the "
                                "MTU of {} ({}) carries only {} bytes; raise it (and the "
                                "switch's) to {}",
                                dev, scnt, scnt * AOE_SECTOR_SIZE, p.ifname, p.mtu,
                                p.payload_expected, want_mtu),
                    ip_mtu(p.ifname, want_mtu));
                mtu_advised.insert(p.ifname);
            } else if (local_sectors > scnt && !mtu_advised.count(p.ifname)) {
                uint32_t target_payload = scnt * AOE_SECTOR_SIZE;
                add(Severity::warning, "target_mtu_lower", t, p.ifname,
                    fmt::format("{}: the target takes only {} sectors ({} bytes) per frame, "
                                "though the MTU of {} ({}) could carry {}: the MTU of the "
                                "target's interface is lower; raise the MTU of the target's "
                                "interface ({}) to {} (and of any switch in between) and "
                                "restart the target; the MTU of {} need not change",
                                dev, scnt, target_payload, p.ifname, p.mtu,
                                aoe_payload_for_mtu(p.mtu, 255, 0), format_mac(p.mac), p.mtu,
                                p.ifname),
                    "");
                mtu_advised.insert(p.ifname);
            }

            switch (p.outcome) {
            case Outcome::ok:
            case Outcome::no_room:
                break;
            case Outcome::dropped:
                add(Severity::warning, "jumbo_dropped", t, p.ifname,
                    fmt::format("{}: on {} reads of {} bytes come back but of {} never do, "
                                "though MTU {} and the target's sector count promise {}: the "
                                "target's interface or a switch drops the larger frames "
                                "(jumbo frames?); raise their MTU to at least {}, or lower "
                                "this side",
                                dev, path, p.payload, p.payload + AOE_SECTOR_SIZE, p.mtu,
                                p.payload_expected,
                                mtu_for_sectors(p.payload_expected / AOE_SECTOR_SIZE)),
                    ip_mtu(p.ifname, mtu_to_lower_to(p.payload)));
                break;
            case Outcome::no_reply:
                add(Severity::error, "no_reply", t, p.ifname,
                    fmt::format("{}: on {} the target answered Query Config but not a "
                                "one-sector read: check that it is not reserved for or "
                                "masked to other initiators, and its log",
                                dev, path),
                    "");
                break;
            case Outcome::ata_error:
                add(Severity::error, "ata_error", t, p.ifname,
                    fmt::format("{}: on {} the target answers a read of sector 0 with an "
                                "error (ATA status {:#04x}, error {:#04x})",
                                dev, path, p.ata_status, p.ata_err),
                    "");
                break;
            case Outcome::timed_out:
                add(Severity::warning, "not_measured", t, p.ifname,
                    fmt::format("{}: {} was not measured: the time given (-w) ran out", dev,
                                path),
                    fmt::format("aoe-discover --probe -w 10 {}", p.ifname));
                break;
            }
        }

        // Local interfaces and their MTUs; target MACs.
        std::map<std::string, uint32_t> local;
        std::set<Mac> macs;
        for (const auto& p : t.paths) {
            local[p.ifname] = p.mtu;
            macs.insert(p.mac);
        }
        uint32_t max_mtu = 0;
        for (const auto& [name, mtu] : local)
            max_mtu = std::max(max_mtu, mtu);
        std::vector<std::string> listed;
        for (const auto& [name, mtu] : local)
            listed.push_back(fmt::format("{} {}", name, mtu));
        for (const auto& [name, mtu] : local) {
            if (mtu == max_mtu || mtu_advised.count(name))
                continue;
            add(Severity::warning, "mtu_differs", t, name,
                fmt::format("{}: the local interfaces reaching it have different MTUs ({}): "
                            "the module uses the payload every path carries, so {} holds "
                            "back the others; raise it to {} (with the target's and the switches' MTU "
                            "on that network)",
                            dev, fmt::join(listed, ", "), name, max_mtu),
                ip_mtu(name, max_mtu));
        }
        if (local.size() != macs.size()) {
            std::vector<std::string> names, mac_texts;
            for (const auto& [name, mtu] : local)
                names.push_back(name);
            for (const auto& m : macs)
                mac_texts.push_back(format_mac(m));
            std::string what =
                local.size() < macs.size()
                    ? "a local interface on each of the target's networks would use all its "
                      "ports (probe or cable the missing one)"
                    : "several local interfaces share fewer target ports; give the target a "
                      "port per network (e.g. one vblade per interface)";
            add(Severity::warning, "path_count", t, "",
                fmt::format("{}: {} local interface{} ({}) but {} target MAC{} ({}): {}", dev,
                            local.size(), local.size() == 1 ? "" : "s", fmt::join(names, ", "),
                            macs.size(), macs.size() == 1 ? "" : "s", fmt::join(mac_texts, ", "),
                            what),
                "");
        }
    }
    return out;
}

int exit_status(const std::vector<TargetResult>& targets, const std::vector<Advice>& advice)
{
    if (targets.empty())
        return cli::kFailure;
    return advice.empty() ? cli::kOk : cli::kProblems;
}

std::string format_report(const std::vector<TargetResult>& targets,
                          const std::vector<Advice>& advice)
{
    std::string out = fmt::format("{:<8} {:<10} {:>5}  {:<17}  {:>6}  {:<6}  {:>4}  {:>7}  {:>8}  "
                                  "{:<12}  {}\n",
                                  "TARGET", "INTERFACE", "MTU", "TARGET MAC", "BUFCNT", "FW",
                                  "SCNT", "PAYLOAD", "MEASURED", "RESULT", "CONFIG");
    for (const auto& t : targets)
        for (const auto& p : t.paths)
            out += fmt::format("{:<8} {:<10} {:>5}  {:<17}  {:>6}  {:<6}  {:>4}  {:>7}  {:>8}  "
                               "{:<12}  \"{}\"\n",
                               t.device(), p.ifname, p.mtu, format_mac(p.mac), p.bufcnt,
                               format_fwver(p.fwver), effective_scnt(p.maxsect),
                               p.payload_expected, p.payload, outcome_name(p.outcome),
                               printable(t.config));
    for (const auto& t : targets)
        out += fmt::format("{}: {}, model {}\n", t.device(),
                           t.sectors ? fmt::format("{} sectors ({})", *t.sectors,
                                                   format_size_aoetools(t.sectors))
                                     : std::string("size unknown (no IDENTIFY answer)"),
                           t.model ? fmt::format("\"{}\"", printable(*t.model))
                                   : std::string("unknown"));
    for (const auto& a : advice) {
        out += fmt::format("{}: {}\n", severity_name(a.severity), a.message);
        if (!a.command.empty())
            out += fmt::format("  fix: {}\n", a.command);
    }
    return out;
}

Json to_json(const std::vector<Interface>& probed, const std::vector<TargetResult>& targets,
             const std::vector<Advice>& advice, uint64_t waited_ms)
{
    Json ifs = Json::array();
    for (const auto& i : probed) {
        Json j = Json::object();
        j["name"] = i.name;
        j["mtu"] = i.mtu;
        j["mac"] = format_mac(i.mac);
        ifs.push_back(std::move(j));
    }
    Json ts = Json::array();
    for (const auto& t : targets) {
        Json j = Json::object();
        j["device"] = t.device();
        j["shelf"] = t.shelf;
        j["slot"] = t.slot;
        j["config"] = t.config;
        j["sectors"] = t.sectors ? Json(*t.sectors) : Json(nullptr);
        j["model"] = t.model ? Json(*t.model) : Json(nullptr);
        Json paths = Json::array();
        for (const auto& p : t.paths) {
            Json q = Json::object();
            q["interface"] = p.ifname;
            q["mtu"] = p.mtu;
            q["mac"] = format_mac(p.mac);
            q["bufcnt"] = p.bufcnt;
            q["fwver"] = p.fwver;
            q["fwver_hex"] = format_fwver(p.fwver);
            q["maxsect"] = effective_scnt(p.maxsect);
            q["payload_expected"] = p.payload_expected;
            q["payload"] = p.payload;
            q["result"] = outcome_name(p.outcome);
            q["probes"] = p.probes_sent;
            q["rtt_us"] = p.rtt_us ? Json(*p.rtt_us) : Json(nullptr);
            if (p.outcome == Outcome::ata_error) {
                q["ata_status"] = p.ata_status;
                q["ata_error"] = p.ata_err;
            }
            paths.push_back(std::move(q));
        }
        j["paths"] = std::move(paths);
        ts.push_back(std::move(j));
    }
    Json adv = Json::array();
    for (const auto& a : advice) {
        Json j = Json::object();
        j["severity"] = severity_name(a.severity);
        j["kind"] = a.kind;
        j["target"] = a.target;
        j["interface"] = a.interface.empty() ? Json(nullptr) : Json(a.interface);
        j["message"] = a.message;
        j["command"] = a.command.empty() ? Json(nullptr) : Json(a.command);
        adv.push_back(std::move(j));
    }
    Json doc = Json::object();
    doc["interfaces"] = std::move(ifs);
    doc["targets"] = std::move(ts);
    doc["advice"] = std::move(adv);
    doc["status"] = exit_status(targets, advice);
    doc["waited_ms"] = waited_ms;
    return doc;
}

}  // namespace aoe::probe
