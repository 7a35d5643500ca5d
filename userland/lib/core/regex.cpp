#include "core/regex.hpp"

#include <fmt/format.h>

namespace aoe {

void Regex::Free::operator()(regex_t* re) const noexcept
{
    regfree(re);
    delete re;
}

Regex::Regex(const std::string& pattern, Syntax syntax) : pattern_(pattern), syntax_(syntax)
{
    auto re = std::make_unique<regex_t>();
    int flags = REG_NOSUB | (syntax == Syntax::kExtended ? REG_EXTENDED : 0);
    int err = regcomp(re.get(), pattern.c_str(), flags);
    if (err != 0) {
        char buf[256];
        regerror(err, re.get(), buf, sizeof buf);
        throw RegexError(fmt::format("invalid regular expression '{}': {}", pattern, buf));
    }
    re_.reset(re.release());
}

bool Regex::search(const std::string& s) const
{
    return re_ && regexec(re_.get(), s.c_str(), 0, nullptr, 0) == 0;
}

}  // namespace aoe
