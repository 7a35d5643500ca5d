// Terminal capabilities from terminfo (the TERM of a descriptor), for tools
// that draw on a plain terminal line (aoe-ddt's progress line) instead of
// hard-coding ANSI escapes.
#pragma once

#include <string>

namespace aoe::term {

// The terminal's "clear to end of line" sequence (terminfo el, expanded by
// tputs), or "" when fd is no terminal, TERM is unknown or it has none.
// Looked up once per process.
const std::string& clear_to_eol(int fd);

}  // namespace aoe::term
