// Logging for the tools: Boost.Log behind a small interface so that only
// log.cpp pulls in the Boost.Log headers.
//   verbosity 0: warnings and errors only; 1 (-v): info; 2+ (-vv): debug.
// Messages go to stderr as "<tool>: <level>: <message>".
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>

namespace aoe::log {

enum class Level { debug, info, warning, error };

void init(const std::string& tool, int verbosity);
bool enabled(Level level);
void write(Level level, const std::string& message);

template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args)
{
    if (enabled(Level::debug))
        write(Level::debug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args)
{
    if (enabled(Level::info))
        write(Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warning(fmt::format_string<Args...> f, Args&&... args)
{
    if (enabled(Level::warning))
        write(Level::warning, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace aoe::log
