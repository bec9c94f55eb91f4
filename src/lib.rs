//! console2svg: run a command in a pseudo-terminal, emulate the terminal exactly, render the
//! screen as SVG.
//!
//! Module map (one line each; see DESIGN.md):
//! - [`term`]: the emulator (alacritty_terminal) and the owned [`term::Screen`] snapshot.
//! - [`pty`]: spawning in a pseudo-terminal, environment policy, process-group kill, exit status.
//! - [`capture`]: the pump (PTY or pipe → emulator → screen) behind a one-shot capture.
//! - [`render`]: `Screen` + appearance → SVG (layout, themes, window chrome, fonts, geometry).

pub mod capture;
pub mod pty;
pub mod render;
pub mod term;
