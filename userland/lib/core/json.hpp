// JSON for every tool's --json: one document type, one way to print it and
// one way to say "the kernel did not send this" (null in JSON, "-" in text).
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace aoe {

// Keys stay in the order they were set.
using Json = nlohmann::ordered_json;

// Pretty JSON text. Invalid UTF-8 (config strings are raw bytes, paths need
// not be UTF-8) is replaced with U+FFFD instead of throwing.
std::string dump_json(const Json& j);
// The same on one line (aoe-top -b --json: a document per line).
std::string dump_json_line(const Json& j);

// null for a missing value.
template <typename T>
Json json_or_null(const std::optional<T>& v)
{
    return v ? Json(*v) : Json(nullptr);
}
// null for an empty string (a name the kernel did not give).
inline Json json_or_null(const std::string& s)
{
    return s.empty() ? Json(nullptr) : Json(s);
}

// "-" for a missing value in a text column.
template <typename T>
std::string text_or_dash(const std::optional<T>& v)
{
    return v ? fmt::format("{}", *v) : std::string("-");
}

}  // namespace aoe
