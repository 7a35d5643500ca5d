#include "probe/discover.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

namespace aoe {

namespace {

bool recent(const std::optional<uint64_t>& last_rx_ms, uint64_t elapsed_ms)
{
    return last_rx_ms && *last_rx_ms <= elapsed_ms;
}

}  // namespace

std::vector<const Target*> answered_targets(const std::vector<Target>& targets,
                                            const std::set<std::string>& fresh,
                                            uint64_t elapsed_ms,
                                            const std::optional<std::string>& iface)
{
    std::vector<const Target*> out;
    for (const auto& t : targets) {
        bool is_new = fresh.count(t.device) > 0;
        bool ok = false;
        if (!iface)
            ok = is_new || recent(t.last_rx_ms, elapsed_ms);
        else
            ok = std::any_of(t.paths.begin(), t.paths.end(), [&](const Path& p) {
                return p.ifname == iface && (is_new || recent(p.last_rx_ms, elapsed_ms));
            });
        if (ok)
            out.push_back(&t);
    }
    std::sort(out.begin(), out.end(), [](const Target* a, const Target* b) {
        return std::tie(a->shelf, a->slot) < std::tie(b->shelf, b->slot);
    });
    return out;
}

Json discover_json(const std::vector<const Target*>& answered, const std::set<std::string>& fresh,
                   uint64_t waited_ms)
{
    Json list = Json::array();
    Json news = Json::array();
    for (const auto* t : answered) {
        list.push_back(to_json(*t));
        if (fresh.count(t->device))
            news.push_back(t->device);
    }
    Json doc = Json::object();
    doc["targets"] = std::move(list);
    doc["new"] = std::move(news);
    doc["waited_ms"] = waited_ms;
    return doc;
}

}  // namespace aoe
