// POSIX regular expressions (regcomp/regexec) behind one RAII type, so each
// tool matches as it documents: aoe-stat as grep (basic, BRE: 'e1\|e9'),
// aoe-top as grep -E (extended, ERE: 'e1|e9'). Matching is a search
// (unanchored), as grep's; the locale's character set applies (UTF-8).
#pragma once

#include <regex.h>

#include <memory>
#include <string>

#include "core/error.hpp"

namespace aoe {

// A pattern regcomp() refused: "invalid regular expression 'PAT': <regerror>".
// Tools treat it as a usage error (exit 2).
class RegexError : public UsageError {
public:
    using UsageError::UsageError;
};

class Regex {
public:
    enum class Syntax { kBasic, kExtended };

    // Throws RegexError for a pattern regcomp() refuses.
    Regex(const std::string& pattern, Syntax syntax);
    Regex(Regex&&) noexcept = default;
    Regex& operator=(Regex&&) noexcept = default;

    // True when the pattern matches somewhere in s.
    bool search(const std::string& s) const;
    const std::string& pattern() const { return pattern_; }
    Syntax syntax() const { return syntax_; }

private:
    // On the heap: a compiled regex_t is not documented to be movable.
    struct Free {
        void operator()(regex_t* re) const noexcept;
    };
    std::unique_ptr<regex_t, Free> re_;
    std::string pattern_;
    Syntax syntax_;
};

}  // namespace aoe
