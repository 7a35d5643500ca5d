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
    char ch = ' ';
    uint8_t attr = kNormal;
    bool operator==(const Cell&) const = default;
};

class Grid {
public:
    Grid(int width, int height);
    int width() const { return w_; }
    int height() const { return h_; }
    // Writes text (ASCII) from column x on row y, clipped at the right edge;
    // returns the column after it.
    int put(int x, int y, std::string_view text, uint8_t attr = kNormal);
    // Sets the attribute of a whole row.
    void attr_row(int y, uint8_t attr);
    const Cell& at(int x, int y) const { return cells_[static_cast<size_t>(y * w_ + x)]; }
    // Row y as text, trailing blanks removed.
    std::string line(int y) const;
    // Every row, newline separated, trailing blank lines removed.
    std::string text() const;

private:
    int w_, h_;
    std::vector<Cell> cells_;
};

}  // namespace aoe::top
