//! console2svg: run a command in a pseudo-terminal, emulate the terminal exactly, render the
//! screen as SVG.
//!
//! Module map (one line each; see DESIGN.md):
//! - [`term`]: the emulator (alacritty_terminal) and the owned [`term::Screen`] snapshot.
//! - [`pty`]: spawning in a pseudo-terminal, environment policy, exit status; [`pty::pump`] the
//!   one PTY pump (drain after exit, query answers, synchronized-output deadlines) that capture
//!   and host sessions share; [`pty::group`] batched process-group signalling.
//! - [`capture`]: a one-shot capture: the pump run blocking (or a pipe) → emulator → screen.
//! - [`host`]: the background session host: socket server, registry, sessions, protocol, client;
//!   all sessions' PTY I/O on one event loop thread (`host::io`).
//! - [`options`]: appearance and terminal options as data (flags, config file, scenarios) and how they stack.
//! - [`output`]: artifact formats and atomic file writes.
//! - [`cli`]: clap definitions and printing for the binaries; no logic beyond argument mapping.
//! - [`scenario`]: scenario documents: parse and validate, export from a journal, run.
//! - [`status`]: the `status` report (fonts and fallbacks, renderers, themes, colour environment).
//! - [`render`]: `Screen` + appearance → SVG (layout, themes, window chrome, fonts, geometry).
//! - [`termio`]: the `termio sessions` namespace: projects, links, replies, the verbs' logic,
//!   the agents registry, transcripts, `termio agent report` (status machine:
//!   `host::agent_status`), watch and attach clients.
//! - [`termio::hooks`], [`termio::codex_notify`]: install, remove and inspect termio's status
//!   hooks in AI coding agents' config files (`termio hooks …`).
//! - [`termio::skill`]: the `termio` agent skill: install, remove, print, and re-assert at host
//!   start (`termio skill …`); [`termio::setup`]: the installers' folders and error.

pub mod capture;
pub mod cli;
/// The fuzzing harness shared by `fuzz/` and `tests/fuzz_props.rs`; not a public interface.
#[doc(hidden)]
pub mod fuzzing;
pub mod host;
pub mod options;
pub mod output;
pub mod pty;
pub mod render;
pub mod scenario;
pub mod status;
pub mod term;
pub mod termio;
