// Prometheus text exposition (format 0.0.4) of the model, for aoe-stat
// --prometheus and node_exporter's textfile collector. Metric names are
// documented in man/aoe-stat.8.
#pragma once

#include <string>
#include <vector>

#include "core/model.hpp"

namespace aoe {

// A label value escaped as the exposition format wants (\\, \", \n).
std::string prom_escape(const std::string& value);

// Every metric family with its HELP and TYPE lines, each family's samples
// together; values the kernel did not send are left out. info may be null
// (no module-wide metrics then).
std::string format_prometheus(const ModuleInfo* info, const std::vector<Target>& targets);

}  // namespace aoe
