// What aoe-discover reports: which targets answered a discovery, and the
// JSON document it prints.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stat/format.hpp"
#include "core/model.hpp"

namespace aoe {

// The targets that answered since a discovery went out elapsed_ms ago:
// announced as new (their device name is in fresh), or last heard from
// within elapsed_ms. With iface, only answers on that interface count.
// Sorted by shelf, then slot.
std::vector<const Target*> answered_targets(const std::vector<Target>& targets,
                                            const std::set<std::string>& fresh,
                                            uint64_t elapsed_ms,
                                            const std::optional<std::string>& iface);

// {"targets": [...], "new": ["e1.2", ...], "waited_ms": N}
Json discover_json(const std::vector<const Target*>& answered, const std::set<std::string>& fresh,
                   uint64_t waited_ms);

}  // namespace aoe
