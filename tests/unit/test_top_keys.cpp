// Unit tests for aoe-top's key table and key handling
// (userland/lib/top/keys.cpp).
#include <doctest/doctest.h>

#include <set>

#include "top/keys.hpp"

using namespace aoe::top;

namespace {

Model model_with(unsigned n)
{
    SyntheticSource src(n, false);
    Model m;
    m.update(src.sample());
    m.update(src.sample());
    return m;
}

}  // namespace

TEST_CASE("key table: no key bound twice, every action has a help line")
{
    std::set<int> keys;
    std::set<Action> helped;
    for (const auto& b : key_table()) {
        CHECK(keys.insert(b.key).second);
        if (*b.help)
            helped.insert(b.action);
    }
    for (const auto& b : key_table())
        CHECK(helped.count(b.action) == 1);
    CHECK(action_for('q') == Action::kQuit);
    CHECK(action_for('j') == Action::kDown);
    CHECK(action_for(kKeyDown) == Action::kDown);
    CHECK(action_for('?') == Action::kHelp);
    CHECK_FALSE(action_for('Z'));
}

TEST_CASE("keys: selection moves and clamps, Enter toggles the detail view")
{
    Model m = model_with(3);
    UiState ui;
    ui.selected = "e1.0";
    handle_key(ui, m, 'j');
    CHECK(ui.selected == "e1.1");
    handle_key(ui, m, kKeyDown);
    handle_key(ui, m, kKeyDown);
    CHECK(ui.selected == "e1.2");
    handle_key(ui, m, 'k');
    CHECK(ui.selected == "e1.1");
    handle_key(ui, m, 'g');
    CHECK(ui.selected == "e1.0");
    handle_key(ui, m, kKeyEnter);
    CHECK(ui.view == View::kDetail);
    handle_key(ui, m, kKeyEnter);
    CHECK(ui.view == View::kTable);
    handle_key(ui, m, 'h');
    CHECK(ui.view == View::kHelp);
    handle_key(ui, m, kKeyEscape);
    CHECK(ui.view == View::kTable);
    CHECK(handle_key(ui, m, 'q') == Effect::kRedraw);
    CHECK(ui.quit);
}

TEST_CASE("keys: s cycles the sort column, p pauses, +/- change the interval")
{
    Model m = model_with(1);
    UiState ui;
    for (int i = 0; i < static_cast<int>(SortKey::kCount); ++i) {
        CHECK(static_cast<int>(ui.sort) == i);
        handle_key(ui, m, 's');
    }
    CHECK(ui.sort == SortKey::kDevice);
    handle_key(ui, m, 'S');
    CHECK(ui.sort == SortKey::kRtt);
    handle_key(ui, m, 'p');
    CHECK(ui.paused);
    handle_key(ui, m, 'p');
    CHECK_FALSE(ui.paused);
    handle_key(ui, m, '+');
    CHECK(ui.interval == doctest::Approx(2.0));
    handle_key(ui, m, '-');
    handle_key(ui, m, '-');
    CHECK(ui.interval == doctest::Approx(0.9));
    for (int i = 0; i < 20; ++i)
        handle_key(ui, m, '-');
    CHECK(ui.interval == doctest::Approx(kMinInterval));
}

TEST_CASE("keys: / edits the filter, Enter applies, Esc cancels, bad regex reported")
{
    Model m = model_with(3);
    UiState ui;
    handle_key(ui, m, '/');
    CHECK(ui.editing_filter);
    for (char c : std::string("1\\.2"))
        handle_key(ui, m, c);
    handle_key(ui, m, 'q');  // typed, not quit
    CHECK_FALSE(ui.quit);
    handle_key(ui, m, kKeyBackspace);
    handle_key(ui, m, kKeyEnter);
    CHECK_FALSE(ui.editing_filter);
    CHECK(ui.filter == "1\\.2");
    auto rows = visible_targets(m, ui);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]->target.device == "e1.2");

    handle_key(ui, m, '/');
    handle_key(ui, m, 'x');
    handle_key(ui, m, kKeyEscape);
    CHECK(ui.filter == "1\\.2");

    handle_key(ui, m, '/');
    handle_key(ui, m, kKeyBackspace);
    handle_key(ui, m, kKeyBackspace);
    handle_key(ui, m, kKeyBackspace);
    handle_key(ui, m, kKeyBackspace);
    handle_key(ui, m, '(');
    handle_key(ui, m, kKeyEnter);
    CHECK(ui.filter == "1\\.2");
    CHECK(ui.message.find("invalid regular expression '('") != std::string::npos);
}

TEST_CASE("keys: the filter is a POSIX extended regex (grep -E), as the REGEX argument")
{
    Model m = model_with(20);  // e1.0 .. e1.15, e2.0 .. e2.3
    UiState ui;
    auto devices = [&] {
        std::vector<std::string> out;
        for (const auto* t : visible_targets(m, ui))
            out.push_back(t->target.device);
        return out;
    };
    ui.filter = "e1\\.1$|e2\\.3";  // ERE alternation
    CHECK(devices() == std::vector<std::string>{"e1.1", "e2.3"});
    ui.filter = "^e1\\.1[0-9]+$";  // + repeats in an ERE
    CHECK(devices().size() == 6);
    ui.filter = "e[[:digit:]]\\.1{2}";  // bracket class, interval
    CHECK(devices() == std::vector<std::string>{"e1.11"});
    ui.filter = "\\d";  // ECMAScript only: in an ERE not a digit class
    CHECK(devices().empty());
}
