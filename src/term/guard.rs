//! The emulator's guards around alacritty_terminal's limits: the handler the parser drives
//! ([`Guarded`], alacritty's `Term` with what it cannot take filtered out) and the grid fix-up
//! before a resize ([`narrow_wide_chars`]).
//!
//! The limits found in alacritty_terminal 0.26 (its `Term::input` and `Grid::resize`), and
//! how each is held:
//!
//! - A double-width character written into a 1-column terminal indexes past the row (a panic
//!   in `Term::input`): it is written as U+FFFD REPLACEMENT CHARACTER, one cell
//!   ([`WIDE_IN_ONE_COLUMN`]).
//! - Reflowing a grid that holds a double-width character to 1 column never ends (the
//!   character is moved to the next row, which is again too narrow, for ever, allocating all
//!   the while in `Grid::shrink_columns`): before a grid becomes 1 column wide, every
//!   double-width character in it (viewport and scrollback, primary and alternate screen)
//!   becomes U+FFFD and its spacer cell a blank.
//! - Reflowing to fewer columns splits each row one piece at a time, and every piece keeps
//!   the capacity of the row it was cut from: a 500-column row reflowed to 1 column holds
//!   ~125 000 cells of capacity (3 MB), so a full 500 × 500 screen with its scrollback went to
//!   tens of GB. A width shrinking to less than half is reached in halving steps
//!   ([`shrink_steps`]), which keeps the capacity within a few times the content.
//! - Sizes are clamped to 1–[`MAX_SIZE`] cells: a 0 size indexes an empty row, and an
//!   unbounded one allocates without limit.
//!
//! Everything else was checked by feeding random output (wide, combining and emoji text, every
//! cursor, erase, scroll-region, tab, insert, origin, wrap, alternate-screen and reset
//! sequence, with counts up to 65 535) and resizes at every size from 1 × 1 to 12 × 12 (and
//! larger by sampling); see the emulator's tests.

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, ClearMode, CursorShape, CursorStyle, Handler, Hyperlink, KeyboardModes,
    KeyboardModesApplyBehavior, LineClearMode, Mode, ModifyOtherKeys, PrivateMode, Rgb,
    ScpCharPath, ScpUpdateMode, StandardCharset, TabulationClearMode,
};
use unicode_width::UnicodeWidthChar;

/// What a double-width character becomes where it cannot fit (a 1-column terminal): U+FFFD
/// REPLACEMENT CHARACTER, one cell wide.
pub const WIDE_IN_ONE_COLUMN: char = '\u{fffd}';

/// The largest terminal the emulator makes, in columns and in rows (the contract's 1–500).
pub const MAX_SIZE: usize = 500;

/// The handler the parser drives: alacritty's `Term`, with the input it cannot take replaced.
pub(super) struct Guarded<'a, T> {
    pub term: &'a mut Term<T>,
}

/// Forwards each listed handler call to the `Term` unchanged.
macro_rules! forward {
    ($( fn $name:ident(&mut self $(, $arg:ident : $ty:ty)*); )*) => {
        $(
            #[inline]
            fn $name(&mut self $(, $arg: $ty)*) {
                Handler::$name(&mut *self.term $(, $arg)*)
            }
        )*
    };
}

impl<T: EventListener> Handler for Guarded<'_, T> {
    #[inline]
    fn input(&mut self, c: char) {
        let c = if self.term.columns() < 2 && c.width() == Some(2) {
            WIDE_IN_ONE_COLUMN
        } else {
            c
        };
        Handler::input(&mut *self.term, c)
    }

    forward! {
        fn set_title(&mut self, title: Option<String>);
        fn set_cursor_style(&mut self, style: Option<CursorStyle>);
        fn set_cursor_shape(&mut self, shape: CursorShape);
        fn goto(&mut self, line: i32, col: usize);
        fn goto_line(&mut self, line: i32);
        fn goto_col(&mut self, col: usize);
        fn insert_blank(&mut self, count: usize);
        fn move_up(&mut self, lines: usize);
        fn move_down(&mut self, lines: usize);
        fn identify_terminal(&mut self, intermediate: Option<char>);
        fn device_status(&mut self, arg: usize);
        fn move_forward(&mut self, cols: usize);
        fn move_backward(&mut self, cols: usize);
        fn move_down_and_cr(&mut self, lines: usize);
        fn move_up_and_cr(&mut self, lines: usize);
        fn put_tab(&mut self, count: u16);
        fn backspace(&mut self);
        fn carriage_return(&mut self);
        fn linefeed(&mut self);
        fn bell(&mut self);
        fn substitute(&mut self);
        fn newline(&mut self);
        fn set_horizontal_tabstop(&mut self);
        fn scroll_up(&mut self, lines: usize);
        fn scroll_down(&mut self, lines: usize);
        fn insert_blank_lines(&mut self, lines: usize);
        fn delete_lines(&mut self, lines: usize);
        fn erase_chars(&mut self, count: usize);
        fn delete_chars(&mut self, count: usize);
        fn move_backward_tabs(&mut self, count: u16);
        fn move_forward_tabs(&mut self, count: u16);
        fn save_cursor_position(&mut self);
        fn restore_cursor_position(&mut self);
        fn clear_line(&mut self, mode: LineClearMode);
        fn clear_screen(&mut self, mode: ClearMode);
        fn clear_tabs(&mut self, mode: TabulationClearMode);
        fn set_tabs(&mut self, interval: u16);
        fn reset_state(&mut self);
        fn reverse_index(&mut self);
        fn terminal_attribute(&mut self, attr: Attr);
        fn set_mode(&mut self, mode: Mode);
        fn unset_mode(&mut self, mode: Mode);
        fn report_mode(&mut self, mode: Mode);
        fn set_private_mode(&mut self, mode: PrivateMode);
        fn unset_private_mode(&mut self, mode: PrivateMode);
        fn report_private_mode(&mut self, mode: PrivateMode);
        fn set_scrolling_region(&mut self, top: usize, bottom: Option<usize>);
        fn set_keypad_application_mode(&mut self);
        fn unset_keypad_application_mode(&mut self);
        fn set_active_charset(&mut self, index: CharsetIndex);
        fn configure_charset(&mut self, index: CharsetIndex, charset: StandardCharset);
        fn set_color(&mut self, index: usize, color: Rgb);
        fn dynamic_color_sequence(&mut self, prefix: String, index: usize, terminator: &str);
        fn reset_color(&mut self, index: usize);
        fn clipboard_store(&mut self, clipboard: u8, base64: &[u8]);
        fn clipboard_load(&mut self, clipboard: u8, terminator: &str);
        fn decaln(&mut self);
        fn push_title(&mut self);
        fn pop_title(&mut self);
        fn text_area_size_pixels(&mut self);
        fn text_area_size_chars(&mut self);
        fn set_hyperlink(&mut self, link: Option<Hyperlink>);
        fn report_keyboard_mode(&mut self);
        fn push_keyboard_mode(&mut self, mode: KeyboardModes);
        fn pop_keyboard_modes(&mut self, to_pop: u16);
        fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior);
        fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys);
        fn report_modify_other_keys(&mut self);
        fn set_scp(&mut self, char_path: ScpCharPath, update_mode: ScpUpdateMode);
    }
    // `set_mouse_cursor_icon` is left to the trait's default: alacritty ignores it too.
}

/// The intermediate widths a resize from `from` to `to` columns goes through: halving while
/// the target is less than half the width (empty when it is not).
pub(super) fn shrink_steps(from: usize, to: usize) -> Vec<usize> {
    let mut steps = Vec::new();
    let mut width = from;
    while to < width / 2 {
        width /= 2;
        steps.push(width);
    }
    steps
}

/// Makes every double-width character of the terminal one cell wide (U+FFFD, its spacer a
/// blank), so that reflowing to 1 column ends: in the active grid, and in the primary grid
/// when the alternate screen is active (the primary is reflowed too; the alternate screen is
/// cleared whenever it is entered, so its inactive content does not matter).
pub(super) fn narrow_wide_chars<T: EventListener>(term: &mut Term<T>) {
    narrow_grid(term.grid_mut());
    if term.mode().contains(TermMode::ALT_SCREEN) {
        // The primary grid is only reachable while active. Leaving the alternate screen keeps
        // it; entering it again clears it, so its grid is put back as it was.
        let alternate = term.grid().clone();
        term.swap_alt();
        narrow_grid(term.grid_mut());
        term.swap_alt();
        *term.grid_mut() = alternate;
    }
}

/// [`narrow_wide_chars`] for one grid, scrollback included.
fn narrow_grid(grid: &mut Grid<Cell>) {
    let cols = grid.columns();
    let top = -(grid.history_size() as i32);
    for line in top..grid.screen_lines() as i32 {
        let row = &mut grid[Line(line)];
        for col in 0..cols {
            let cell = &mut row[Column(col)];
            if cell.flags.contains(Flags::WIDE_CHAR) {
                cell.flags.remove(Flags::WIDE_CHAR);
                cell.c = WIDE_IN_ONE_COLUMN;
            } else if cell
                .flags
                .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
            {
                cell.flags
                    .remove(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
                cell.c = ' ';
            }
        }
    }
}
