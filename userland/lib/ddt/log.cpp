#include "ddt/log.hpp"

#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/utility/setup/console.hpp>

namespace aoe::ddt {

void log_init(int verbosity)
{
    namespace logging = boost::log;
    static bool sink_added = false;
    if (!sink_added) {
        logging::add_console_log(std::clog, logging::keywords::format =
                                                (logging::expressions::stream
                                                 << "aoe-ddt: "
                                                 << logging::trivial::severity << ": "
                                                 << logging::expressions::smessage));
        sink_added = true;
    }
    auto level = verbosity >= 2   ? logging::trivial::debug
                 : verbosity == 1 ? logging::trivial::info
                                  : logging::trivial::warning;
    logging::core::get()->set_filter(logging::trivial::severity >= level);
}

}  // namespace aoe::ddt
