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

/// The bytes held back from an earlier read (`carry`, left empty) followed by `bytes`: borrowed
/// when nothing was held, else one joined buffer. For the readers that keep an unfinished
/// piece between reads (the emulator's split UTF-8 character, the sniffer's open sequence).
fn after_carry<'a>(carry: &mut Vec<u8>, bytes: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
    if carry.is_empty() {
        std::borrow::Cow::Borrowed(bytes)
    } else {
        let mut joined = std::mem::take(carry);
        joined.extend_from_slice(bytes);
        std::borrow::Cow::Owned(joined)
    }
}
pub use guard::{MAX_SIZE, WIDE_IN_ONE_COLUMN};
pub use screen::*;
