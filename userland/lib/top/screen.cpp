// Character grid. See screen.hpp.
#include "top/screen.hpp"

#include <algorithm>

namespace aoe::top {

Grid::Grid(int width, int height)
    : w_(std::max(width, 0)), h_(std::max(height, 0)),
      cells_(static_cast<size_t>(w_) * static_cast<size_t>(h_))
{
}

int Grid::put(int x, int y, std::string_view text, uint8_t attr)
{
    if (y < 0 || y >= h_)
        return x + static_cast<int>(text.size());
    for (char c : text) {
        if (x >= 0 && x < w_) {
            Cell& cell = cells_[static_cast<size_t>(y * w_ + x)];
            cell.ch = (c >= 0x20 && c < 0x7f) ? c : '?';
            cell.attr = attr;
        }
        ++x;
    }
    return x;
}

void Grid::attr_row(int y, uint8_t attr)
{
    if (y < 0 || y >= h_)
        return;
    for (int x = 0; x < w_; ++x)
        cells_[static_cast<size_t>(y * w_ + x)].attr |= attr;
}

std::string Grid::line(int y) const
{
    std::string s;
    for (int x = 0; x < w_; ++x)
        s += at(x, y).ch;
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
}

std::string Grid::text() const
{
    std::string out;
    for (int y = 0; y < h_; ++y)
        out += line(y) + '\n';
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
        out.pop_back();
    return out;
}

}  // namespace aoe::top
