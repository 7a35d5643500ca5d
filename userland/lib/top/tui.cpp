// ncurses backend and main loops. See tui.hpp.
#include "top/tui.hpp"

#include <curses.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.hpp"
#include "top/keys.hpp"

namespace aoe::top {

namespace {

volatile sig_atomic_t g_stop = 0;
volatile sig_atomic_t g_curses_active = 0;

void on_stop(int)
{
    g_stop = 1;
}

void on_crash(int sig)
{
    if (g_curses_active)
        endwin();  // best effort: the terminal back before the core dump
    signal(sig, SIG_DFL);
    raise(sig);
}

// Owns the ncurses screen and the signal handlers that restore it.
class Curses {
public:
    Curses()
    {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
            throw Error("aoe-top needs a terminal: use -b for batch output");
        // ncursesw writes the grid's code points in the locale's encoding.
        setlocale(LC_CTYPE, "");
        if (!newterm(nullptr, stdout, stdin))
            throw Error("cannot initialise the terminal (is TERM set?)");
        g_curses_active = 1;
        struct sigaction sa {};
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);  // no SA_RESTART: poll() returns EINTR
        sigaction(SIGINT, &sa, &old_int_);
        sigaction(SIGTERM, &sa, &old_term_);
        sigaction(SIGHUP, &sa, &old_hup_);
        struct sigaction crash {};
        crash.sa_handler = on_crash;
        sigemptyset(&crash.sa_mask);
        for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
            sigaction(s, &crash, nullptr);
        cbreak();
        noecho();
        nonl();
        keypad(stdscr, TRUE);
        nodelay(stdscr, TRUE);
        set_escdelay(25);
        curs_set(0);
        const char* nc = std::getenv("NO_COLOR");
        if (has_colors() && !(nc && *nc)) {
            start_color();
            use_default_colors();
            init_pair(1, COLOR_RED, -1);
            color_ = true;
        }
    }
    ~Curses()
    {
        endwin();
        g_curses_active = 0;
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
        sigaction(SIGHUP, &old_hup_, nullptr);
    }
    Curses(const Curses&) = delete;
    Curses& operator=(const Curses&) = delete;

    void draw(const Grid& g)
    {
        for (int y = 0; y < g.height(); ++y) {
            move(y, 0);
            for (int x = 0; x < g.width(); ++x) {
                const Cell& c = g.at(x, y);
                if (c.ch == 0)
                    continue;  // second column of a wide character
                attr_t a = A_NORMAL;
                short pair = 0;
                if (c.attr & kBold)
                    a |= A_BOLD;
                if (c.attr & kReverse)
                    a |= A_REVERSE;
                if (c.attr & kUnderline)
                    a |= A_UNDERLINE;
                if (c.attr & kAlert) {
                    a |= color_ ? A_BOLD : (A_BOLD | A_UNDERLINE);
                    pair = color_ ? 1 : 0;
                }
                // The bottom-right cell would scroll on some terminals.
                if (y == g.height() - 1 && x == g.width() - 1)
                    break;
                wchar_t wc[2] = {static_cast<wchar_t>(c.ch), L'\0'};
                cchar_t cc;
                setcchar(&cc, wc, a, pair, nullptr);
                mvadd_wch(y, x, &cc);
            }
        }
        refresh();
    }

    static int translate(int ch)
    {
        switch (ch) {
        case KEY_UP: return kKeyUp;
        case KEY_DOWN: return kKeyDown;
        case KEY_LEFT: return kKeyLeft;
        case KEY_RIGHT: return kKeyRight;
        case KEY_HOME: return kKeyHome;
        case KEY_END: return kKeyEnd;
        case KEY_PPAGE: return kKeyPageUp;
        case KEY_NPAGE: return kKeyPageDown;
        case KEY_ENTER: case '\n': case '\r': return kKeyEnter;
        case KEY_BACKSPACE: case 0x7f: case 8: return kKeyBackspace;
        case 27: return kKeyEscape;
        case KEY_RESIZE: return kKeyResize;
        default: return ch;
        }
    }

private:
    struct sigaction old_int_ {}, old_term_ {}, old_hup_ {};
    bool color_ = false;
};

std::string hostname()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "?";
    return buf;
}

Clock::duration seconds(double s)
{
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

int run_screen(Source& src, UiState ui, const RunOptions& opt)
{
    g_stop = 0;
    ui.interval = opt.interval;
    if (ui.host.empty())
        ui.host = hostname();
    Model model;
    Curses screen;
    auto take = [&] {
        model.update(src.sample());
        if (ui.selected.empty() || !model.find(ui.selected)) {
            auto rows = visible_targets(model, ui);
            if (!rows.empty())
                ui.selected = rows.front()->target.device;
        }
    };
    auto draw = [&] {
        int h = 0, w = 0;
        getmaxyx(stdscr, h, w);
        Grid g(w, h);
        render(g, model, ui);
        screen.draw(g);
    };
    take();
    draw();
    long done = 1;
    Clock::time_point next = Clock::now() + seconds(ui.interval);
    while (!ui.quit && !g_stop) {
        if (opt.iterations > 0 && done >= opt.iterations)
            break;
        pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {src.event_fd(), POLLIN, 0}};
        int nfds = fds[1].fd >= 0 ? 2 : 1;
        int timeout = -1;
        if (!ui.paused) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
            timeout = static_cast<int>(std::max<long long>(0, left.count() + 1));
        }
        int n = poll(fds, static_cast<nfds_t>(nfds), timeout);
        if (n < 0 && errno != EINTR)
            throw Error(std::string("poll: ") + std::strerror(errno));
        bool redraw = false;
        // Keys (and KEY_RESIZE after SIGWINCH interrupted poll).
        for (int ch; (ch = getch()) != ERR;) {
            bool was_paused = ui.paused;
            double was_interval = ui.interval;
            Effect e = handle_key(ui, model, Curses::translate(ch));
            if (e != Effect::kNone)
                redraw = true;
            if (was_paused && !ui.paused)
                next = Clock::now();
            if (ui.interval != was_interval)
                next = Clock::now() + seconds(ui.interval);
            if (ui.quit)
                break;
        }
        if (ui.quit || g_stop)
            break;
        if (nfds == 2 && (fds[1].revents & POLLIN)) {
            auto events = src.read_events();
            for (const auto& e : events)
                model.apply_event(e);
            if (!events.empty())
                redraw = true;
        }
        if (!ui.paused && Clock::now() >= next) {
            take();
            ++done;
            next += seconds(ui.interval);
            if (next < Clock::now())
                next = Clock::now() + seconds(ui.interval);
            redraw = true;
        }
        if (redraw)
            draw();
    }
    return 0;
}

int run_batch(Source& src, UiState ui, const RunOptions& opt, std::ostream& out)
{
    ui.interval = opt.interval;
    if (ui.host.empty())
        ui.host = hostname();
    int width = opt.width;
    if (width <= 0) {
        const char* cols = std::getenv("COLUMNS");
        width = cols ? std::atoi(cols) : 0;
        if (width < 40)
            width = 200;
    }
    Model model;
    Clock::time_point next = Clock::now();
    for (long i = 0; opt.iterations <= 0 || i < opt.iterations; ++i) {
        if (i > 0) {
            next += seconds(ui.interval);
            // Events between samples are applied too (a gone target leaves at once).
            std::this_thread::sleep_until(next);
            auto events = src.read_events();
            for (const auto& e : events)
                model.apply_event(e);
        }
        model.update(src.sample());
        if (opt.json)
            out << dump_json_line(sample_json(model, ui)) << '\n';
        else
            out << (i > 0 ? "\n" : "") << batch_text(model, ui, width);
        out.flush();
        if (!out)
            return 1;
    }
    return 0;
}

}  // namespace aoe::top
