//! The terminal model: the emulator over alacritty_terminal and the owned [`Screen`] snapshot.
//! Knows nothing of PTYs, sockets or SVG.

pub mod ansi;
pub mod cluster;
mod colours;
mod dec;
mod emulator;
mod flood;
mod guard;
mod hibernate;
pub mod keys;
mod modes;
mod screen;
mod scrollback;
pub mod sniff;
pub mod xcolor;

pub use emulator::{Emulator, QueryColors, MAX_SCROLLBACK, SCROLLBACK_LINES, SYNC_TIMEOUT};
pub use guard::{MAX_SIZE, WIDE_IN_ONE_COLUMN};
pub use screen::*;
