// aoe-ddt: sizes on the command line ("4k", "1M", "2G") and how they are printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aoe::ddt {

// Parses a byte count: a decimal number with an optional binary suffix
// K, M, G, T (powers of 1024; "KiB"/"k"/"kb" spellings accepted, case-insensitive).
// Returns nullopt for empty input, garbage, a fraction, or overflow.
std::optional<uint64_t> parse_size(std::string_view text);

// "1 MiB", "4 KiB", "1.5 GiB", "512 B": the shortest exact-enough spelling.
std::string format_iec(uint64_t bytes);

// Always in MiB, as the summary line wants it: "1024 MiB", "0.5 MiB".
std::string format_mib(uint64_t bytes);

// A duration in microseconds spelled for people: "850 us", "11.2 ms", "1.23 s".
std::string format_usec(double usec);

}  // namespace aoe::ddt
