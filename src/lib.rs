//! console2svg: run a command in a pseudo-terminal, emulate the terminal exactly, render the
//! screen as SVG.
//!
//! Module map (one line each; layers go one way, `term` <- `render` <- `host` <-
//! `termio`/`scenario` <- `cli`, held by `tests/architecture.rs`; see DESIGN.md):
//! - [`term`]: the emulator (alacritty_terminal, with a compact scrollback of its own and the
//!   DEC/xterm functions it lacks: margins, selective erase, rectangles, reports) and the
//!   owned [`term::Screen`] snapshot; key names → bytes.
//! - [`pty`]: spawning in a PTY, environment policy, exit status; [`pty::pump`] the one PTY pump
//!   capture and host sessions share; [`pty::group`] batched process-group signalling.
//! - [`render`]: `Screen` + appearance → SVG (layout, themes, window chrome, fonts, geometry).
//! - [`mask`]: secret masking on a `Screen` (or a text) before rendering: auto rules, `--mask`,
//!   gitleaks-format rule files. A safety net, not a guarantee.
//! - [`crop`]: cropping a `Screen` by px, cells or text patterns (`--crop-*`).
//! - [`capture`]: a one-shot capture: the pump run blocking (or a pipe) → emulator → screen.
//! - [`interactive`]: a program run through our emulator with input from the user's terminal
//!   (raw mode, F10/F9 hotkeys) or from a replay file, on the one pump's rules.
//! - [`replay`]: replay files (the original's replay v1 JSON): typed bytes → key events and back.
//! - [`recording`]: recordings (timed output), asciicast in/out, frame derivation, the ffmpeg pipe.
//! - [`duration`]: durations as people write them (`500ms`, `2s`, `3m`), parsed and formatted.
//! - [`host`]: the generic session host: socket server (one request loop for every client,
//!   requests in acceptance order), registry,
//!   sessions, protocol and typed replies (`host::reply`), client, crash recovery
//!   (`host::recovery`), event hub (`host::events`), and the extension trait services plug in
//!   by (`host::extension`).
//! - [`termio`]: the `termio sessions` namespace: verbs and replies (client), and termio's host
//!   extension (`termio::service`): projects, status machines (`termio::status`), stall alarm.
//! - [`termio::hooks`], [`termio::codex_notify`], [`termio::skill`]: install, remove and inspect
//!   termio's status hooks and agent skill (`termio hooks …`, `termio skill …`).
//! - [`scenario`]: scenario documents: parse and validate, export from a journal, run.
//! - [`options`]: appearance and terminal options as data (flags, config file, scenarios) and how they
//!   stack; the original's config v1 keys (`options::compat`); the config file's JSON Schema;
//!   where `-t` finds a theme and the user theme directory ([`options::themes`]).
//! - [`output`]: artifact formats and atomic file writes.
//! - [`status`]: the `status` report (fonts and fallbacks, renderers, themes, colour environment).
//! - [`batch`]: `batch markdown` (regenerate and re-link every docs picture a Markdown tree's
//!   markers ask for) and `batch restore` (assets back from a manifest).
//! - [`mcp`]: `console2svg mcp`, the session suite and termio's verbs as an MCP server on stdio
//!   (rmcp): tools, screen resources with subscriptions; a client of the host like the CLI.
//! - [`live`]: `console2svg live-server`, a session's screen (or a termio project's focused
//!   one) rendered as SVG and pushed to a browser page over Server-Sent Events; a client of
//!   the host like the MCP server.
//! - [`tmux`]: reading an existing tmux pane (cells, cursor, history) into a `Screen`.
//! - [`cli`]: clap definitions and printing for the binaries; wires termio's extension into the
//!   host; no logic beyond argument mapping.

pub mod batch;
pub mod capture;
pub mod cli;
pub mod crop;
pub mod duration;
/// The fuzzing harness shared by `fuzz/` and `tests/fuzz_props.rs`; not a public interface.
#[doc(hidden)]
pub mod fuzzing;
pub mod host;
pub mod interactive;
pub mod live;
pub mod mask;
pub mod mcp;
pub mod options;
pub mod output;
pub mod pty;
pub mod recording;
pub mod render;
pub mod replay;
pub mod scenario;
pub mod status;
pub mod term;
pub mod termio;
pub mod tmux;
