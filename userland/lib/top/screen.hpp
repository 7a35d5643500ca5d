// A fixed-size character grid the views render into; ncurses (tui.cpp) only
// copies it to the terminal, tests compare it with golden text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::top {

enum Attr : uint8_t {
    kNormal = 0,
    kBold = 1,
    kReverse = 2,   // selected row, header bar
    kAlert = 4,     // rising retransmits, targets down
    kUnderline = 8, // sort column marker
};

struct Cell {
    // A Unicode code point; 0 in the second column of a double-width one.
    char32_t ch = U' ';
    uint8_t attr = kNormal;
    bool operator==(const Cell&) const = default;
};

// Columns a code point takes on a terminal: 2 for East Asian wide and
// full-width ones, 1 otherwise (also in the C locale, so that tests and
// terminals agree).
int cell_width(char32_t c);

class Grid {
public:
    Grid(int width, int height);
    int width() const { return w_; }
    int height() const { return h_; }
    // Writes UTF-8 text from column x on row y, clipped at the right edge
    // (a wide character that does not fit is a blank); control characters
    // and invalid bytes show as '?'. Returns the column after it.
    int put(int x, int y, std::string_view text, uint8_t attr = kNormal);
    // Sets the attribute of a whole row.
    void attr_row(int y, uint8_t attr);
    const Cell& at(int x, int y) const { return cells_[static_cast<size_t>(y * w_ + x)]; }
    // Row y as UTF-8 text, trailing blanks removed.
    std::string line(int y) const;
    // Every row, newline separated, trailing blank lines removed.
    std::string text() const;

private:
    int w_, h_;
    std::vector<Cell> cells_;
};

}  // namespace aoe::top
