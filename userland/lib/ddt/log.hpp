// aoe-ddt: Boost.Log set-up for -v (debug messages on stderr).
#pragma once

#include <boost/log/trivial.hpp>

namespace aoe::ddt {

// verbosity 0: warnings and errors; 1 (-v): info; 2+ (-vv): debug.
void log_init(int verbosity);

}  // namespace aoe::ddt

#define DDT_LOG(sev) BOOST_LOG_TRIVIAL(sev)
