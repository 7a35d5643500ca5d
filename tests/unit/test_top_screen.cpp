// Unit tests for aoe-top's character grid (userland/lib/top/screen.cpp):
// UTF-8 text keeps its columns (ncursesw draws the code points).
#include <doctest/doctest.h>

#include <string>

#include "top/screen.hpp"

using aoe::top::Grid;

TEST_CASE("grid: UTF-8 names take one column per character")
{
    Grid g(20, 2);
    int end = g.put(0, 0, "e1.2 Modèle été");  // 15 characters, 17 bytes
    CHECK(end == 15);
    g.put(16, 0, "|");
    CHECK(g.line(0) == "e1.2 Modèle été |");
    CHECK(g.at(5, 0).ch == U'M');
    CHECK(g.at(9, 0).ch == U'l');
    CHECK(g.at(8, 0).ch == U'\u00e8');
}

TEST_CASE("grid: wide characters take two columns and are never cut in half")
{
    Grid g(6, 1);
    CHECK(g.put(0, 0, "磁盘x") == 5);
    CHECK(g.line(0) == "磁盘x");
    CHECK(g.at(1, 0).ch == 0);  // second half of 磁
    g.put(1, 0, "a");  // over the second half: the first becomes a blank
    CHECK(g.line(0) == " a盘x");
    Grid edge(3, 1);
    edge.put(0, 0, "ab磁");  // does not fit at column 2: a blank
    CHECK(edge.line(0) == "ab");
}

TEST_CASE("grid: control characters and invalid UTF-8 show as '?'")
{
    Grid g(12, 1);
    CHECK(g.put(0, 0, std::string("a\tb\x01") + "\xff" + "c\xc3") == 7);
    CHECK(g.line(0) == "a?b??c?");
    Grid o(4, 1);
    o.put(0, 0, "\xc0\xaf" "x");  // overlong '/'
    CHECK(o.line(0) == "?x");
}
