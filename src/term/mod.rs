//! The terminal model: the emulator over alacritty_terminal and the owned [`Screen`] snapshot.

mod screen;

pub use screen::*;
