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

#endif
