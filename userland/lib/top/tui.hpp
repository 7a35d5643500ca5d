// aoe-top's main loops: the ncurses screen (RAII; signal handlers restore the
// terminal) and batch mode. The refresh tick is the input wait: poll() on the
// terminal and the netlink event socket, no busy loop.
#pragma once

#include <iosfwd>
#include <memory>

#include "top/stats.hpp"
#include "top/view.hpp"

namespace aoe::top {

struct RunOptions {
    double interval = 1.0;
    long iterations = 0;  // 0: until quit
    bool json = false;     // batch only
    int width = 0;         // batch text width; 0: $COLUMNS or 200
};

// Interactive; returns the exit status.
int run_screen(Source& src, UiState ui, const RunOptions& opt);
// Batch (-b): a sample every interval to out.
int run_batch(Source& src, UiState ui, const RunOptions& opt, std::ostream& out);

}  // namespace aoe::top
