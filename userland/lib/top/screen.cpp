// Character grid. See screen.hpp.
#include "top/screen.hpp"

#include <algorithm>

namespace aoe::top {

namespace {

// Decodes one UTF-8 sequence at s[i]; advances i. Invalid or overlong
// sequences give '?' and advance by one byte.
char32_t decode(std::string_view s, size_t& i)
{
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
        ++i;
        return b;
    }
    int n = (b >> 5) == 6 ? 1 : (b >> 4) == 14 ? 2 : (b >> 3) == 30 ? 3 : -1;
    if (n < 0 || i + static_cast<size_t>(n) >= s.size()) {
        ++i;
        return U'?';
    }
    char32_t c = b & (0x3f >> n);
    for (int k = 1; k <= n; ++k) {
        auto cb = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        if ((cb & 0xc0) != 0x80) {
            ++i;
            return U'?';
        }
        c = (c << 6) | (cb & 0x3f);
    }
    static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    i += static_cast<size_t>(n) + 1;
    if (c < kMin[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return U'?';
    return c;
}

void encode(std::string& out, char32_t c)
{
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xc0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xe0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (c & 0x3f));
    }
}

bool printable(char32_t c)
{
    return c >= 0x20 && c != 0x7f && !(c >= 0x80 && c < 0xa0);
}

}  // namespace

int cell_width(char32_t c)
{
    // The East Asian Wide/Full-width blocks (as wcwidth() in a UTF-8 locale).
    if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) ||
        (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
        (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
        (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
        (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd))
        return 2;
    return 1;
}

Grid::Grid(int width, int height)
    : w_(std::max(width, 0)), h_(std::max(height, 0)),
      cells_(static_cast<size_t>(w_) * static_cast<size_t>(h_))
{
}

int Grid::put(int x, int y, std::string_view text, uint8_t attr)
{
    for (size_t i = 0; i < text.size();) {
        char32_t c = decode(text, i);
        if (!printable(c))
            c = U'?';
        int wd = cell_width(c);
        if (y >= 0 && y < h_) {
            for (int k = 0; k < wd; ++k) {
                int cx = x + k;
                if (cx < 0 || cx >= w_)
                    continue;
                Cell& cell = cells_[static_cast<size_t>(y * w_ + cx)];
                // Never leave half of a wide character behind.
                if (cell.ch == 0 && cx > 0 && k == 0)
                    cells_[static_cast<size_t>(y * w_ + cx - 1)].ch = U' ';
                if (cx + 1 < w_ && k == wd - 1 && cells_[static_cast<size_t>(y * w_ + cx + 1)].ch == 0)
                    cells_[static_cast<size_t>(y * w_ + cx + 1)].ch = U' ';
                // A wide character cut by the right edge is a blank.
                cell.ch = k ? 0 : (x + wd > w_ ? U' ' : c);
                cell.attr = attr;
            }
        }
        x += wd;
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
        if (char32_t c = at(x, y).ch)
            encode(s, c);
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
