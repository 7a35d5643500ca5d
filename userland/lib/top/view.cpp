// aoe-top's views. See view.hpp.
#include "top/view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>

#include "aoe_netlink.h"
#include "core/error.hpp"
#include "core/regex.hpp"
#include "top/keys.hpp"

namespace aoe::top {

namespace {

const char* const kSortNames[] = {"device", "state", "read", "write", "iops", "retrans", "rtt"};

std::string state_text(const Target& t)
{
    return t.state ? target_state_name(*t.state) : "-";
}

std::string rtt_text(const Path* p)
{
    if (!p || !p->rtt_avg_us)
        return "-";
    std::string s = fmt::format("{:.2f}", *p->rtt_avg_us / 1000.0);
    if (p->rtt_dev_us)
        s += fmt::format("+-{:.2f}", *p->rtt_dev_us / 1000.0);
    return s;
}

std::string window_text(const std::optional<uint32_t>& win, const std::optional<uint32_t>& out)
{
    if (!win && !out)
        return "-";
    return fmt::format("{}/{}", win ? fmt::format("{}", *win) : "-",
                       out ? fmt::format("{}", *out) : "-");
}

struct Column {
    SortKey sort;     // kCount: not sortable
    const char* head;
    int width;
    int keep;         // narrow screens drop the lowest first
    bool left;
    std::function<std::string(const TargetStats&)> value;
};

const std::vector<Column>& columns()
{
    static const std::vector<Column> cols = {
        {SortKey::kDevice, "DEVICE", 9, 100, true, [](const TargetStats& t) { return t.target.device; }},
        {SortKey::kState, "STATE", 6, 90, true, [](const TargetStats& t) { return state_text(t.target); }},
        {SortKey::kCount, "PATHS", 5, 40, false,
         [](const TargetStats& t) { return fmt::format("{}/{}", t.paths_up, t.paths.size()); }},
        {SortKey::kRead, "RD_MB/s", 8, 80, false, [](const TargetStats& t) { return format_mbps(t.rates.read_Bps); }},
        {SortKey::kWrite, "WR_MB/s", 8, 80, false, [](const TargetStats& t) { return format_mbps(t.rates.write_Bps); }},
        {SortKey::kIops, "IOPS", 7, 70, false, [](const TargetStats& t) { return format_rate(t.rates.iops); }},
        {SortKey::kRetrans, "RETR/s", 7, 60, false, [](const TargetStats& t) { return format_rate(t.rates.retrans_ps); }},
        {SortKey::kCount, "RETR", 8, 30, false, [](const TargetStats& t) { return text_or_dash(t.target.counters.retransmits); }},
        {SortKey::kCount, "TMO", 6, 20, false, [](const TargetStats& t) { return text_or_dash(t.target.counters.timeouts); }},
        {SortKey::kRtt, "RTT_ms", 11, 50, false, [](const TargetStats& t) { return rtt_text(t.best_path()); }},
        {SortKey::kCount, "WIN/OUT", 8, 15, false,
         [](const TargetStats& t) {
             const Path* p = t.best_path();
             return window_text(p ? p->window : std::nullopt, t.target.outstanding);
         }},
        {SortKey::kCount, "PAYLD", 6, 10, false,
         [](const TargetStats& t) {
             return t.target.payload ? fmt::format("{}", *t.target.payload) : std::string("-");
         }},
    };
    return cols;
}

constexpr int kSparkMin = 10, kSparkMax = 60, kSparkKeep = 5;

// Columns that fit in width; spark: sparkline width (0: none).
std::vector<const Column*> fit_columns(int width, int& spark)
{
    std::vector<const Column*> cols;
    for (const auto& c : columns())
        cols.push_back(&c);
    spark = kSparkMin;
    auto total = [&] {
        int w = 0;
        for (auto* c : cols)
            w += c->width + 1;
        return w + (spark ? spark + 1 : 0);
    };
    while (total() > width) {
        auto lowest = std::min_element(cols.begin(), cols.end(),
                                       [](const Column* a, const Column* b) { return a->keep < b->keep; });
        if (spark && (lowest == cols.end() || kSparkKeep < (*lowest)->keep)) {
            spark = 0;
            continue;
        }
        if (cols.size() <= 1)
            break;
        cols.erase(lowest);
    }
    if (spark)
        spark = std::min(kSparkMax, spark + width - total());
    return cols;
}

double sort_value(const TargetStats& t, SortKey k)
{
    switch (k) {
    case SortKey::kRead: return t.rates.read_Bps.value_or(-1);
    case SortKey::kWrite: return t.rates.write_Bps.value_or(-1);
    case SortKey::kIops: return t.rates.iops.value_or(-1);
    case SortKey::kRetrans: return t.rates.retrans_ps.value_or(-1);
    case SortKey::kRtt: {
        const Path* p = t.best_path();
        return p && p->rtt_avg_us ? -static_cast<double>(*p->rtt_avg_us) : -1e18;  // slowest first
    }
    default: return 0;
    }
}

std::string iface_list(const ModuleInfo& info)
{
    if (info.interfaces.empty())
        return "none";
    std::string s;
    for (const auto& i : info.interfaces) {
        if (!s.empty())
            s += ", ";
        s += fmt::format("{} mtu {} {}", i.name, i.mtu ? fmt::format("{}", *i.mtu) : "-",
                         i.up ? "up" : "down");
    }
    return s;
}

}  // namespace

const char* sort_key_name(SortKey k)
{
    return kSortNames[static_cast<int>(k)];
}

SortKey parse_sort_key(const std::string& name)
{
    for (int i = 0; i < static_cast<int>(SortKey::kCount); ++i)
        if (name == kSortNames[i])
            return static_cast<SortKey>(i);
    throw UsageError("unknown sort key '" + name +
                     "': use device, state, read, write, iops, retrans or rtt");
}

std::vector<const TargetStats*> visible_targets(const Model& m, const UiState& ui)
{
    std::vector<const TargetStats*> rows;
    std::optional<Regex> re;
    if (!ui.filter.empty()) {
        try {
            re.emplace(ui.filter, Regex::Syntax::kExtended);
        } catch (const RegexError&) {
            // checked when set (main, edit_filter): cannot happen
        }
    }
    for (const auto& t : m.targets())
        if (!re || re->search(t.target.device))
            rows.push_back(&t);
    SortKey k = ui.sort;
    std::stable_sort(rows.begin(), rows.end(), [k](const TargetStats* a, const TargetStats* b) {
        if (k == SortKey::kDevice)
            return false;  // the model keeps device order
        if (k == SortKey::kState)
            return state_text(a->target) < state_text(b->target);
        return sort_value(*a, k) > sort_value(*b, k);
    });
    return rows;
}

std::string format_mbps(const std::optional<double>& Bps)
{
    if (!Bps)
        return "-";
    return fmt::format("{:.1f}", *Bps / 1e6);
}

std::string format_rate(const std::optional<double>& v)
{
    if (!v)
        return "-";
    if (*v < 10 && *v != std::floor(*v))
        return fmt::format("{:.1f}", *v);
    return fmt::format("{:.0f}", *v);
}

std::string sparkline(const std::deque<double>& history, int width)
{
    static const char levels[] = " _.-=+*#";
    std::string s;
    if (width <= 0)
        return s;
    size_t n = std::min(history.size(), static_cast<size_t>(width));
    double max = 0;
    for (size_t i = history.size() - n; i < history.size(); ++i)
        max = std::max(max, history[i]);
    for (size_t i = history.size() - n; i < history.size(); ++i) {
        int lv = max > 0 ? static_cast<int>(std::ceil(history[i] / max * 7)) : 0;
        s += levels[std::clamp(lv, 0, 7)];
    }
    return s;
}

std::string format_time(WallClock::time_point t, bool millis)
{
    using namespace std::chrono;
    auto whole = floor<seconds>(t);
    time_t secs = WallClock::to_time_t(whole);
    struct tm tm {};
    gmtime_r(&secs, &tm);
    std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900,
                                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (millis)
        out += fmt::format(".{:03}", duration_cast<milliseconds>(t - whole).count());
    return out + "Z";
}

int render_header(Grid& g, const Model& m, const UiState& ui)
{
    std::string version = m.info().version.value_or("-");
    g.put(0, 0, fmt::format("aoe-top - {} - aoe {} - {} - every {:.1f}s{}", ui.host, version,
                            format_time(m.wall_time()), ui.interval,
                            ui.paused ? " - PAUSED" : ""),
          kBold);
    if (!m.module_loaded()) {
        g.put(0, 1, (m.error().empty() ? std::string("aoe module not loaded: run modprobe aoe")
                                       : m.error()) + " (waiting for it)",
              kAlert);
    } else {
        g.put(0, 1, "Interfaces: " + iface_list(m.info()));
        Totals t = m.totals();
        int x = g.put(0, 2, fmt::format("Total: read {} MB/s, write {} MB/s, {} IOPS, ",
                                        format_mbps(t.read_Bps), format_mbps(t.write_Bps),
                                        format_rate(t.iops)));
        bool hot = t.retrans_ps && *t.retrans_ps > 0;
        x = g.put(x, 2, fmt::format("{} retr/s", format_rate(t.retrans_ps)),
                  hot ? kAlert : kNormal);
        x = g.put(x, 2, fmt::format("; {} up, ", t.up));
        x = g.put(x, 2, fmt::format("{} down", t.down), t.down ? kAlert : kNormal);
        if (t.other)
            g.put(x, 2, fmt::format(", {} other", t.other));
    }
    if (ui.editing_filter)
        g.put(0, 3, "Filter (regex, Enter applies, Esc cancels): /" + ui.filter_edit + "_", kBold);
    else if (!ui.message.empty())
        g.put(0, 3, ui.message, kAlert);
    else {
        std::string s = fmt::format("sort: {}", sort_key_name(ui.sort));
        if (!ui.filter.empty())
            s += " - filter: /" + ui.filter;
        if (!m.last_event().empty())
            s += " - event: " + m.last_event();
        s += " - h: help";
        g.put(0, 3, s);
    }
    return 4;
}

void render_table(Grid& g, int top, const Model& m, const UiState& ui)
{
    int spark = 0;
    auto cols = fit_columns(g.width(), spark);
    int x = 0;
    for (auto* c : cols) {
        bool sorted = c->sort == ui.sort;
        std::string head = sorted ? fmt::format("{}*", c->head) : c->head;
        std::string cell = c->left ? fmt::format("{:<{}}", head, c->width)
                                   : fmt::format("{:>{}}", head, c->width);
        x = g.put(x, top, cell, sorted ? kReverse | kUnderline : kReverse);
        x = g.put(x, top, " ", kReverse);
    }
    if (spark)
        x = g.put(x, top, fmt::format("{:<{}}", "THROUGHPUT", spark), kReverse);
    g.attr_row(top, kReverse);

    auto rows = visible_targets(m, ui);
    if (rows.empty()) {
        g.put(0, top + 1, m.targets().empty() ? "no targets" : "no target matches the filter");
        return;
    }
    int avail = g.height() - top - 1;
    int sel = 0;
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i]->target.device == ui.selected)
            sel = static_cast<int>(i);
    int first = avail > 0 && sel >= avail ? sel - avail + 1 : 0;
    for (int r = 0; r < avail && first + r < static_cast<int>(rows.size()); ++r) {
        const TargetStats& t = *rows[static_cast<size_t>(first + r)];
        int y = top + 1 + r;
        x = 0;
        for (auto* c : cols) {
            std::string v = c->value(t);
            if (static_cast<int>(v.size()) > c->width)
                v.resize(static_cast<size_t>(c->width));
            uint8_t a = kNormal;
            if (c->sort == SortKey::kRetrans && t.retrans_rising)
                a = kAlert;
            if (c->sort == SortKey::kState && t.target.state &&
                *t.target.state == AOE_TARGET_STATE_DOWN)
                a = kAlert;
            x = g.put(x, y, c->left ? fmt::format("{:<{}}", v, c->width)
                                    : fmt::format("{:>{}}", v, c->width),
                      a);
            x = g.put(x, y, " ");
        }
        if (spark)
            g.put(x, y, sparkline(t.history, spark));
        if (t.target.device == ui.selected || (ui.selected.empty() && r + first == 0))
            g.attr_row(y, kReverse);
    }
}

void render_detail(Grid& g, int top, const Model& m, const UiState& ui)
{
    const TargetStats* t = m.find(ui.selected);
    if (!t) {
        g.put(0, top, "no target selected (Esc: back)");
        return;
    }
    const Target& tg = t->target;
    int y = top;
    std::string cap = tg.sectors ? fmt::format("{:.3f} GB ({} sectors)", *tg.sectors * 512 / 1e9,
                                               *tg.sectors)
                                 : "-";
    g.put(0, y++, fmt::format("{}  state {}  capacity {}  payload {}{}", tg.device,
                              state_text(tg), cap,
                              tg.payload ? fmt::format("{}", *tg.payload) : "-",
                              tg.lba48 ? "  lba48" : ""),
          kBold);
    g.put(0, y++, fmt::format("model: {}  serial: {}  firmware: {}",
                              printable(tg.model.value_or("-")), printable(tg.serial.value_or("-")),
                              printable(tg.firmware.value_or("-"))));
    g.put(0, y++, "config: " + (tg.config ? "\"" + printable(*tg.config) + "\"" : std::string("-")));
    g.put(0, y++, fmt::format("read {} MB/s  write {} MB/s  {} IOPS  retransmits {} ({}/s)  "
                              "timeouts {}  lost {}",
                              format_mbps(t->rates.read_Bps), format_mbps(t->rates.write_Bps),
                              format_rate(t->rates.iops), text_or_dash(tg.counters.retransmits),
                              format_rate(t->rates.retrans_ps), text_or_dash(tg.counters.timeouts),
                              text_or_dash(tg.counters.lost)));
    ++y;
    std::string head = fmt::format("{:<28} {:<5} {:>13} {:>7} {:>8} {:>8} {:>7} {:>6} {:>8} {:>8}",
                                   "PATH (interface -> target)", "STATE", "RTT_ms", "RTO_ms",
                                   "WIN/OUT", "RETR", "RETR/s", "LOST", "RD_MB/s", "WR_MB/s");
    g.put(0, y, head, kReverse);
    g.attr_row(y++, kReverse);
    for (const auto& ps : t->paths) {
        const Path& p = ps.path;
        std::string name = fmt::format("{} -> {}", path_ifname(p), format_mac(p.mac));
        bool rising = ps.rates.retrans_ps && *ps.rates.retrans_ps > 0;
        int x = g.put(0, y, fmt::format("{:<28} {:<5} {:>13} {:>7} {:>8} {:>8} ", name,
                                        p.state ? path_state_name(*p.state) : "-", rtt_text(&p),
                                        p.rto_us ? fmt::format("{:.1f}", *p.rto_us / 1000.0) : "-",
                                        window_text(p.window, p.outstanding),
                                        text_or_dash(p.counters.retransmits)));
        x = g.put(x, y, fmt::format("{:>7}", format_rate(ps.rates.retrans_ps)),
                  rising ? kAlert : kNormal);
        g.put(x, y, fmt::format(" {:>6} {:>8} {:>8}", text_or_dash(p.counters.lost),
                                format_mbps(ps.rates.read_Bps), format_mbps(ps.rates.write_Bps)));
        ++y;
    }
    if (t->paths.empty())
        g.put(0, y++, "no paths");
    g.put(0, y + 1, "Enter or Esc: back to the table");
}

void render_help(Grid& g, int top)
{
    int y = top;
    g.put(0, y++, "Keys", kBold);
    std::vector<std::pair<std::string, std::string>> lines;
    for (const auto& b : key_table()) {
        if (*b.help) {
            lines.push_back({b.label, b.help});
        } else if (!lines.empty()) {
            lines.back().first += std::string(" ") + b.label;
        }
    }
    for (const auto& [keys, help] : lines)
        g.put(2, y++, fmt::format("{:<16} {}", keys, help));
    ++y;
    g.put(0, y++, "Rates are per second over the last interval; '-' until two samples exist.");
    g.put(0, y++, "RETR/s is highlighted while retransmits keep rising. h, ? or Esc: back.");
}

void render(Grid& g, const Model& m, const UiState& ui)
{
    int top = render_header(g, m, ui);
    switch (ui.view) {
    case View::kTable: render_table(g, top, m, ui); break;
    case View::kDetail: render_detail(g, top, m, ui); break;
    case View::kHelp: render_help(g, top); break;
    }
}

std::string batch_text(const Model& m, const UiState& ui, int width)
{
    size_t rows = visible_targets(m, ui).size();
    Grid g(width, static_cast<int>(rows) + 6);
    int top = render_header(g, m, ui);
    UiState plain = ui;
    plain.selected = "\x01";  // no selected row
    if (m.module_loaded())
        render_table(g, top, m, plain);
    return g.text();
}

Json sample_json(const Model& m, const UiState& ui)
{
    Json j = Json::object();
    j["time"] = format_time(m.wall_time(), true);
    j["timestamp"] = std::chrono::duration<double>(m.wall_time().time_since_epoch()).count();
    j["module_loaded"] = m.module_loaded();
    if (!m.module_loaded())
        j["error"] = m.error();
    j["version"] = json_or_null(m.info().version);
    j["interval"] = ui.interval;
    Json ifs = Json::array();
    for (const auto& i : m.info().interfaces)
        ifs.push_back(to_json(i));
    j["interfaces"] = std::move(ifs);
    Totals t = m.totals();
    j["totals"] = {{"read_bytes_per_s", json_or_null(t.read_Bps)}, {"write_bytes_per_s", json_or_null(t.write_Bps)},
                   {"iops", json_or_null(t.iops)}, {"retransmits_per_s", json_or_null(t.retrans_ps)},
                   {"targets_up", t.up}, {"targets_down", t.down}};
    Json list = Json::array();
    for (const TargetStats* ts : visible_targets(m, ui)) {
        const Target& tg = ts->target;
        const Path* best = ts->best_path();
        list.push_back({{"device", tg.device},
                        {"state", tg.state ? Json(target_state_name(*tg.state)) : Json(nullptr)},
                        {"paths_up", ts->paths_up},
                        {"paths", ts->paths.size()},
                        {"read_bytes_per_s", json_or_null(ts->rates.read_Bps)},
                        {"write_bytes_per_s", json_or_null(ts->rates.write_Bps)},
                        {"iops", json_or_null(ts->rates.iops)},
                        {"retransmits_per_s", json_or_null(ts->rates.retrans_ps)},
                        {"retransmits", json_or_null(tg.counters.retransmits)},
                        {"timeouts", json_or_null(tg.counters.timeouts)},
                        {"rtt_avg_us", best ? json_or_null(best->rtt_avg_us) : Json(nullptr)},
                        {"rtt_dev_us", best ? json_or_null(best->rtt_dev_us) : Json(nullptr)},
                        {"window", best ? json_or_null(best->window) : Json(nullptr)},
                        {"outstanding", json_or_null(tg.outstanding)},
                        {"payload", json_or_null(tg.payload)}});
    }
    j["targets"] = std::move(list);
    return j;
}

}  // namespace aoe::top
