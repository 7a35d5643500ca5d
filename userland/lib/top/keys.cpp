// Key table and key handling. See keys.hpp.
#include "top/keys.hpp"

#include <algorithm>
#include <cmath>

#include "core/regex.hpp"

namespace aoe::top {

const std::vector<KeyBinding>& key_table()
{
    static const std::vector<KeyBinding> table = {
        {kKeyUp, Action::kUp, "Up", "select the previous target"},
        {'k', Action::kUp, "k", ""},
        {kKeyDown, Action::kDown, "Down", "select the next target"},
        {'j', Action::kDown, "j", ""},
        {kKeyHome, Action::kTop, "Home", "select the first target"},
        {'g', Action::kTop, "g", ""},
        {kKeyEnd, Action::kBottom, "End", "select the last target"},
        {'G', Action::kBottom, "G", ""},
        {kKeyPageUp, Action::kPageUp, "PgUp", "ten targets up"},
        {kKeyPageDown, Action::kPageDown, "PgDn", "ten targets down"},
        {kKeyEnter, Action::kDetail, "Enter", "details of the selected target (again: back)"},
        {kKeyEscape, Action::kBack, "Esc", "back to the table"},
        {kKeyBackspace, Action::kBack, "Backspace", ""},
        {'s', Action::kSort, "s", "sort by the next column"},
        {'S', Action::kSortBack, "S", "sort by the previous column"},
        {'/', Action::kFilter, "/", "filter devices by regular expression (empty: all)"},
        {'p', Action::kPause, "p", "pause / resume sampling"},
        {' ', Action::kPause, "Space", ""},
        {'+', Action::kSlower, "+", "longer interval"},
        {'-', Action::kFaster, "-", "shorter interval"},
        {'h', Action::kHelp, "h", "this help (again: back)"},
        {'?', Action::kHelp, "?", ""},
        {'q', Action::kQuit, "q", "quit"},
    };
    return table;
}

std::optional<Action> action_for(int key)
{
    for (const auto& b : key_table())
        if (b.key == key)
            return b.action;
    return std::nullopt;
}

namespace {

void move_selection(UiState& ui, const Model& m, int delta, bool absolute = false)
{
    auto rows = visible_targets(m, ui);
    if (rows.empty())
        return;
    int cur = 0;
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i]->target.device == ui.selected)
            cur = static_cast<int>(i);
    int n = static_cast<int>(rows.size());
    int next = absolute ? (delta < 0 ? 0 : n - 1) : std::clamp(cur + delta, 0, n - 1);
    ui.selected = rows[static_cast<size_t>(next)]->target.device;
}

Effect edit_filter(UiState& ui, int key)
{
    if (key == kKeyEscape) {
        ui.editing_filter = false;
        return Effect::kRedraw;
    }
    if (key == kKeyEnter) {
        ui.editing_filter = false;
        try {
            Regex check(ui.filter_edit, Regex::Syntax::kExtended);
            ui.filter = ui.filter_edit;
            ui.message.clear();
        } catch (const RegexError& e) {
            ui.message = e.what();
        }
        return Effect::kRedraw;
    }
    if (key == kKeyBackspace || key == 0x7f || key == 8) {
        if (!ui.filter_edit.empty())
            ui.filter_edit.pop_back();
        return Effect::kRedraw;
    }
    if (key >= 0x20 && key < 0x7f) {
        ui.filter_edit += static_cast<char>(key);
        return Effect::kRedraw;
    }
    return Effect::kNone;
}

}  // namespace

Effect handle_key(UiState& ui, const Model& m, int key)
{
    if (ui.editing_filter)
        return edit_filter(ui, key);
    if (key == kKeyResize)
        return Effect::kRedraw;
    auto action = action_for(key);
    if (!action)
        return Effect::kNone;
    constexpr int n_sort = static_cast<int>(SortKey::kCount);
    switch (*action) {
    case Action::kUp: move_selection(ui, m, -1); break;
    case Action::kDown: move_selection(ui, m, 1); break;
    case Action::kPageUp: move_selection(ui, m, -10); break;
    case Action::kPageDown: move_selection(ui, m, 10); break;
    case Action::kTop: move_selection(ui, m, -1, true); break;
    case Action::kBottom: move_selection(ui, m, 1, true); break;
    case Action::kDetail:
        ui.view = ui.view == View::kDetail ? View::kTable : View::kDetail;
        if (ui.view == View::kDetail && ui.selected.empty())
            move_selection(ui, m, 0);
        break;
    case Action::kBack: ui.view = View::kTable; break;
    case Action::kSort:
        ui.sort = static_cast<SortKey>((static_cast<int>(ui.sort) + 1) % n_sort);
        break;
    case Action::kSortBack:
        ui.sort = static_cast<SortKey>((static_cast<int>(ui.sort) + n_sort - 1) % n_sort);
        break;
    case Action::kFilter:
        ui.editing_filter = true;
        ui.filter_edit = ui.filter;
        break;
    case Action::kPause:
        ui.paused = !ui.paused;
        return Effect::kResample;  // the main loop restarts its tick on resume
    case Action::kSlower:
        ui.interval = std::min(kMaxInterval, ui.interval < 1 ? ui.interval + 0.1 : ui.interval + 1);
        ui.interval = std::round(ui.interval * 10) / 10;
        break;
    case Action::kFaster:
        ui.interval = std::max(kMinInterval, ui.interval <= 1 ? ui.interval - 0.1 : ui.interval - 1);
        ui.interval = std::round(ui.interval * 10) / 10;
        break;
    case Action::kHelp: ui.view = ui.view == View::kHelp ? View::kTable : View::kHelp; break;
    case Action::kQuit: ui.quit = true; break;
    }
    return Effect::kRedraw;
}

}  // namespace aoe::top
