#include "core/log.hpp"

#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_logger.hpp>
#include <boost/log/utility/setup/console.hpp>

#include <atomic>
#include <iostream>

namespace aoe::log {

namespace {

namespace bl = boost::log;

std::atomic<int> g_min{static_cast<int>(Level::warning)};
std::string g_tool = "aoe";

const char* level_name(Level l)
{
    switch (l) {
    case Level::debug:
        return "debug";
    case Level::info:
        return "info";
    case Level::warning:
        return "warning";
    case Level::error:
        return "error";
    }
    return "?";
}

BOOST_LOG_ATTRIBUTE_KEYWORD(severity, "Severity", Level)

bl::sources::severity_logger<Level>& logger()
{
    static bl::sources::severity_logger<Level> lg;
    return lg;
}

}  // namespace

void init(const std::string& tool, int verbosity)
{
    g_tool = tool;
    Level min = verbosity >= 2 ? Level::debug : verbosity == 1 ? Level::info : Level::warning;
    g_min = static_cast<int>(min);
    auto core = bl::core::get();
    core->remove_all_sinks();
    auto sink = bl::add_console_log(std::clog);
    sink->set_formatter([](const bl::record_view& rec, bl::formatting_ostream& os) {
        auto lvl = rec[severity];
        os << g_tool << ": " << (lvl ? level_name(*lvl) : "?") << ": "
           << rec[bl::expressions::smessage];
    });
    sink->locked_backend()->auto_flush(true);
    core->set_filter(severity >= min);
}

bool enabled(Level level)
{
    return static_cast<int>(level) >= g_min.load();
}

void write(Level level, const std::string& message)
{
    BOOST_LOG_SEV(logger(), level) << message;
}

}  // namespace aoe::log
