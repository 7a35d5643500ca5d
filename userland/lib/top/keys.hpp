// aoe-top's key table and what each key does to the UI state; no terminal
// here (tui.cpp translates ncurses key codes to Key values).
#pragma once

#include <optional>
#include <vector>

#include "top/stats.hpp"
#include "top/view.hpp"

namespace aoe::top {

// Plain characters are their ASCII code; special keys above 0xff.
enum Key : int {
    kKeyUp = 0x100, kKeyDown, kKeyLeft, kKeyRight, kKeyHome, kKeyEnd, kKeyPageUp,
    kKeyPageDown, kKeyEnter, kKeyBackspace, kKeyEscape, kKeyResize,
};

enum class Action {
    kUp, kDown, kTop, kBottom, kPageUp, kPageDown, kDetail, kBack, kSort, kSortBack,
    kFilter, kPause, kFaster, kSlower, kHelp, kQuit,
};

struct KeyBinding {
    int key;
    Action action;
    const char* label;  // "j", "Down"
    const char* help;   // shown once per action, on its first binding
};

const std::vector<KeyBinding>& key_table();
std::optional<Action> action_for(int key);

// What handle_key wants from the main loop.
enum class Effect { kNone, kRedraw, kResample };

// Applies key to ui (with the model for selection). While a filter is being
// typed, keys edit it: Enter applies, Escape cancels.
Effect handle_key(UiState& ui, const Model& m, int key);

// Smallest and largest refresh interval, seconds.
constexpr double kMinInterval = 0.1, kMaxInterval = 60.0;

}  // namespace aoe::top
