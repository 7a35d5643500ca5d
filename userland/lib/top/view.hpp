// aoe-top's views: header, target table, detail and help, rendered from the
// model and the UI state into a Grid; plus the batch (-b) text and JSON.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "stat/format.hpp"  // aoe::Json
#include "top/screen.hpp"
#include "top/stats.hpp"

namespace aoe::top {

enum class SortKey { kDevice, kState, kRead, kWrite, kIops, kRetrans, kRtt, kCount };
// "device", "state", "read", "write", "iops", "retrans", "rtt".
const char* sort_key_name(SortKey k);
// Throws UsageError for an unknown name.
SortKey parse_sort_key(const std::string& name);

enum class View { kTable, kDetail, kHelp };

struct UiState {
    View view = View::kTable;
    SortKey sort = SortKey::kDevice;
    std::string filter;  // POSIX extended regex (grep -E) on the device name; empty: all
    bool editing_filter = false;
    std::string filter_edit;  // text typed after '/'
    std::string selected;  // device of the selected row
    bool paused = false;
    double interval = 1.0;  // seconds
    bool quit = false;
    std::string message;  // one-line status (bad filter, ...)
    std::string host;
};

// Targets to show, filtered and sorted (descending for rates).
std::vector<const TargetStats*> visible_targets(const Model& m, const UiState& ui);

// "12.3" (MB/s, 10^6 bytes), "-" for unknown.
std::string format_mbps(const std::optional<double>& Bps);
std::string format_rate(const std::optional<double>& v);
// ASCII sparkline of the last `width` values, scaled to their maximum.
std::string sparkline(const std::deque<double>& history, int width);

// The whole screen for the current view.
void render(Grid& g, const Model& m, const UiState& ui);
// Parts, for tests.
int render_header(Grid& g, const Model& m, const UiState& ui);  // returns rows used
void render_table(Grid& g, int top, const Model& m, const UiState& ui);
void render_detail(Grid& g, int top, const Model& m, const UiState& ui);
void render_help(Grid& g, int top);

// "2026-12-01T20:31:05Z" (UTC, RFC 3339); with millis "...05.123Z".
std::string format_time(WallClock::time_point t, bool millis = false);

// Batch mode: header and table as plain text, `width` columns wide; the
// header line carries the sample's time.
std::string batch_text(const Model& m, const UiState& ui, int width);
// Batch --json: one object for the sample (rates null on the first), with
// "time" (RFC 3339 UTC, milliseconds) and "timestamp" (Unix seconds).
Json sample_json(const Model& m, const UiState& ui);

}  // namespace aoe::top
