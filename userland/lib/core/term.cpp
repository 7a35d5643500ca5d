#include "core/term.hpp"

// <term.h> defines macros named after capabilities (lines, columns, ...):
// included here only, after the standard headers.
#include <unistd.h>

#include <optional>

#include <curses.h>
#include <term.h>

namespace aoe::term {

namespace {

std::string* g_sink = nullptr;

int sink_putc(int c)
{
    if (g_sink)
        g_sink->push_back(static_cast<char>(c));
    return c;
}

std::string lookup(int fd, const char* cap)
{
    if (!isatty(fd))
        return {};
    TERMINAL* saved = cur_term;
    int err = 0;
    std::string out;
    if (setupterm(nullptr, fd, &err) == OK) {
        char* s = tigetstr(cap);
        if (s && s != reinterpret_cast<char*>(-1)) {
            g_sink = &out;
            tputs(s, 1, sink_putc);  // expands padding as the terminal needs
            g_sink = nullptr;
        }
        del_curterm(cur_term);
    }
    set_curterm(saved);
    return out;
}

}  // namespace

const std::string& clear_to_eol(int fd)
{
    static const std::string el = lookup(fd, "el");
    return el;
}

}  // namespace aoe::term
