// Unit tests for the POSIX regular expression wrapper
// (userland/lib/core/regex.cpp).
#include <doctest/doctest.h>

#include <utility>

#include "core/regex.hpp"

using aoe::Regex;
using aoe::RegexError;

TEST_CASE("regex: basic syntax is grep's (BRE with GNU \\| and \\{\\})")
{
    Regex r("e1\\|e9", Regex::Syntax::kBasic);
    CHECK(r.search("   e1.2  "));
    CHECK(r.search("e9.9"));
    CHECK_FALSE(r.search("e2.2"));
    CHECK(Regex("e1+", Regex::Syntax::kBasic).search("e1+"));  // + literal
    CHECK_FALSE(Regex("e1+", Regex::Syntax::kBasic).search("e11"));
    CHECK(Regex("a\\{2\\}", Regex::Syntax::kBasic).search("baab"));
    CHECK(Regex("^e1\\.2$", Regex::Syntax::kBasic).search("e1.2"));
    CHECK_FALSE(Regex("^e1\\.2$", Regex::Syntax::kBasic).search("e1x2"));
}

TEST_CASE("regex: extended syntax is grep -E's (ERE)")
{
    Regex r("e1|e9", Regex::Syntax::kExtended);
    CHECK(r.search("e1.2"));
    CHECK(r.search("e9.1"));
    CHECK_FALSE(r.search("e2.1"));
    CHECK(Regex("e1+$", Regex::Syntax::kExtended).search("e111"));
    CHECK(Regex("(ab){2}", Regex::Syntax::kExtended).search("xababx"));
    CHECK_FALSE(Regex("e1\\|e9", Regex::Syntax::kExtended).search("e1"));  // \| is a literal |
}

TEST_CASE("regex: a bad pattern is a RegexError (a usage error) naming it")
{
    for (auto syn : {Regex::Syntax::kBasic, Regex::Syntax::kExtended}) {
        try {
            Regex r("[e", syn);
            FAIL("no error for [e");
        } catch (const RegexError& e) {
            CHECK(std::string(e.what()).starts_with("invalid regular expression '[e': "));
        }
    }
    CHECK_THROWS_AS(Regex("e\\{1", Regex::Syntax::kBasic), aoe::UsageError);
    CHECK_THROWS_AS(Regex("(e", Regex::Syntax::kExtended), RegexError);
    CHECK_THROWS_AS(Regex("e\\(", Regex::Syntax::kBasic), RegexError);
}

TEST_CASE("regex: moves keep the compiled pattern")
{
    Regex a("e1", Regex::Syntax::kBasic);
    Regex b = std::move(a);
    CHECK(b.search("e1.2"));
    Regex c("zz", Regex::Syntax::kExtended);
    c = std::move(b);
    CHECK(c.search("e1.2"));
    CHECK(c.pattern() == "e1");
}
