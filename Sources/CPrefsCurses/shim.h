// SPDX-License-Identifier: Apache-2.0
// ncurses (the wide-character build) for the terminal browser: only PrefsBrowser imports it, and within it only
// Terminal.swift. The functions below wrap what ncurses defines as macros, which Swift cannot call.
#ifndef CPREFS_CURSES_SHIM_H
#define CPREFS_CURSES_SHIM_H

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <locale.h>
#include <term.h>

static inline int prefs_curses_lines(void) { return LINES; }
static inline int prefs_curses_columns(void) { return COLS; }
static inline int prefs_curses_colors(void) { return COLORS; }
static inline int prefs_curses_color_pair(short pair) { return (int)COLOR_PAIR(pair); }
static inline int prefs_curses_bold(void) { return (int)A_BOLD; }
static inline int prefs_curses_reverse(void) { return (int)A_REVERSE; }
static inline int prefs_curses_underline(void) { return (int)A_UNDERLINE; }
static inline int prefs_curses_dim(void) { return (int)A_DIM; }
static inline int prefs_curses_normal(void) { return (int)A_NORMAL; }
static inline WINDOW *prefs_curses_standard_screen(void) { return stdscr; }
static inline int prefs_curses_error(void) { return ERR; }

#endif
