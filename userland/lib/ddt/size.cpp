#include "ddt/size.hpp"

#include <cctype>
#include <charconv>
#include <limits>

#include <fmt/format.h>

namespace aoe::ddt {

std::optional<uint64_t> parse_size(std::string_view text)
{
    uint64_t value = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr == first)
        return std::nullopt;
    std::string suffix;
    for (const char* p = ptr; p != last; ++p)
        suffix.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*p))));
    unsigned shift = 0;
    if (suffix.empty() || suffix == "b")
        shift = 0;
    else if (suffix == "k" || suffix == "kb" || suffix == "kib")
        shift = 10;
    else if (suffix == "m" || suffix == "mb" || suffix == "mib")
        shift = 20;
    else if (suffix == "g" || suffix == "gb" || suffix == "gib")
        shift = 30;
    else if (suffix == "t" || suffix == "tb" || suffix == "tib")
        shift = 40;
    else
        return std::nullopt;
    if (shift && value > (std::numeric_limits<uint64_t>::max() >> shift))
        return std::nullopt;
    return value << shift;
}

std::string format_iec(uint64_t bytes)
{
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    unsigned u = 0;
    double v = static_cast<double>(bytes);
    while (v >= 1024.0 && u + 1 < std::size(units)) {
        v /= 1024.0;
        ++u;
    }
    uint64_t unit = uint64_t{1} << (10 * u);
    if (bytes % unit == 0)
        return fmt::format("{} {}", bytes / unit, units[u]);
    return fmt::format("{:.1f} {}", v, units[u]);
}

std::string format_mib(uint64_t bytes)
{
    if (bytes % (1 << 20) == 0)
        return fmt::format("{} MiB", bytes >> 20);
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string format_usec(double usec)
{
    if (usec < 1000.0)
        return fmt::format("{:.0f} us", usec);
    if (usec < 1e6)
        return fmt::format("{:.1f} ms", usec / 1e3);
    return fmt::format("{:.2f} s", usec / 1e6);
}

}  // namespace aoe::ddt
