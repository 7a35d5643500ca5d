#include "core/json.hpp"

namespace aoe {

std::string dump_json(const Json& j)
{
    return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string dump_json_line(const Json& j)
{
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace aoe
