// The C side of StoreDesk's terminal layer: the wide-character curses API, plus the macros and
// globals that Swift cannot reach directly, wrapped in small static inline functions.
#ifndef STOREDESK_CNCURSES_SHIM_H
#define STOREDESK_CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <signal.h>
#include <stddef.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include <ncursesw/curses.h>

static inline WINDOW *sd_stdscr(void) { return stdscr; }
static inline int sd_lines(void) { return LINES; }
static inline int sd_cols(void) { return COLS; }
static inline int sd_colors(void) { return COLORS; }
static inline int sd_color_pairs(void) { return COLOR_PAIRS; }
static inline int sd_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline attr_t sd_a_normal(void) { return A_NORMAL; }
static inline attr_t sd_a_bold(void) { return A_BOLD; }
static inline attr_t sd_a_reverse(void) { return A_REVERSE; }
static inline attr_t sd_a_underline(void) { return A_UNDERLINE; }
static inline attr_t sd_a_dim(void) { return A_DIM; }
static inline attr_t sd_a_italic(void) { return A_ITALIC; }
static inline int sd_key_resize(void) { return KEY_RESIZE; }
static inline int sd_wcwidth(wchar_t c) { return wcwidth(c); }
static inline int sd_setlocale_all(void) { return setlocale(LC_ALL, "") != NULL; }

/// Writes one wide character (with its attributes and colour pair) at y, x.
static inline int sd_put_wide(WINDOW *w, int y, int x, const wchar_t *chars, attr_t attrs, int pair) {
    cchar_t cell;
    int extended = pair;
    if (setcchar(&cell, chars, attrs, 0, &extended) != OK) return ERR;
    return mvwadd_wch(w, y, x, &cell);
}

/// Defines a colour pair; pairs above 255 need the extended API.
static inline int sd_init_pair(int pair, int fg, int bg) { return init_extended_pair(pair, fg, bg); }
static inline int sd_init_color_rgb(int color, int r, int g, int b) {
    return init_extended_color(color, r * 1000 / 255, g * 1000 / 255, b * 1000 / 255);
}

// Giving the terminal back when the process dies of a fault (a Swift trap, a crash, an abort): ncurses
// restores it on SIGINT and the console does on TERM and HUP, but a fault would otherwise leave the
// user's shell in raw mode with the cursor hidden, mouse reporting on (every click types escape
// sequences into the shell), the keypad in application mode and the console's screen up. The handler
// only calls async-signal-safe functions (tcsetattr, write, sigaction, raise) on bytes made before it
// runs, then sets the signal's default disposition and raises it again: the process ends by that signal
// (its status and any core as the system makes them), never in a handler that might wait on the tty.
struct sd_fault_restore_state {
    struct termios saved;
    int saved_valid;
    struct sigaction previous[NSIG];
};

/// The state lives in a function's static (a header's own static variables are not emitted for Swift).
static inline struct sd_fault_restore_state *sd_fault_restore_state(void) {
    static struct sd_fault_restore_state state;
    return &state;
}

/// The signals a fault ends the process with.
enum { SD_FAULT_SIGNAL_COUNT = 6 };
static inline int sd_fault_signal(int index) {
    switch (index) {
    case 0: return SIGSEGV;
    case 1: return SIGILL;
    case 2: return SIGABRT;
    case 3: return SIGBUS;
    case 4: return SIGFPE;
    default: return SIGTRAP;
    }
}

static inline void sd_restore_terminal_on_fault(int sig) {
    struct sd_fault_restore_state *state = sd_fault_restore_state();
    if (state->saved_valid) tcsetattr(STDIN_FILENO, TCSANOW, &state->saved);
    // Mouse reporting off (SGR 1006, buttons 1000, and the motion modes 1002/1003 should anything have
    // asked for them), plain attributes, the cursor shown, the keypad's normal mode (rmkx), the main screen.
    static const char reset[] =
        "\033[?1006l\033[?1003l\033[?1002l\033[?1000l\033[0m\033[?25h\033[?1l\033>\033[?1049l\r\n";
    ssize_t written = write(STDOUT_FILENO, reset, sizeof reset - 1);
    (void)written;
    struct sigaction fallback;
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    fallback.sa_flags = 0;
    sigaction(sig, &fallback, NULL);
    // Blocked until this handler returns, then handled as before: a signal sent with kill(1) ends the
    // process too, not only a fault that would happen again.
    raise(sig);
}

/// Call before initscr(): remembers the terminal as the shell left it and takes over the fault signals.
static inline void sd_install_fault_restore(void) {
    struct sd_fault_restore_state *state = sd_fault_restore_state();
    state->saved_valid = tcgetattr(STDIN_FILENO, &state->saved) == 0;
    struct sigaction action;
    action.sa_handler = sd_restore_terminal_on_fault;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    for (int i = 0; i < SD_FAULT_SIGNAL_COUNT; i++) {
        int sig = sd_fault_signal(i);
        sigaction(sig, &action, &state->previous[sig]);
    }
}

/// Call after endwin(): the fault signals go back to whoever had them.
static inline void sd_remove_fault_restore(void) {
    struct sd_fault_restore_state *state = sd_fault_restore_state();
    for (int i = 0; i < SD_FAULT_SIGNAL_COUNT; i++) {
        int sig = sd_fault_signal(i);
        sigaction(sig, &state->previous[sig], NULL);
    }
}

#endif
