//! termio: the `termio sessions` orchestration namespace on the shared session host
//! (shared/spec/termio-sessions.md).
//!
//! A termio session is a host session (the same host process and socket as `console2svg
//! session`) seen through a project: every caller is resolved to its project ([`project`]),
//! sees and drives only that project's sessions, and addresses them by `termio://session/<uuid>`
//! links ([`link`]). The clap front end is `cli::termio`.
//!
//! Client side (the `termio` binary):
//! - [`verbs`]: the verbs, returning the contract's typed replies ([`reply`]) or its one error
//!   shape ([`error`]); `--wait` runs here over host probes.
//! - [`wire`]: the `termio` op of the host protocol (requests, the host's answers, termio's
//!   part of each session summary).
//! - [`watch`] and [`attach`]: clients of the host's event streams (`host::events`).
//! - [`report`]: `termio agent report`, the command agents' status hooks run.
//!
//! Host side, plugged into the session host as its extension (the host never names termio):
//! - [`service`]: the extension: the termio requests, run/spawn/send/close/focus, project
//!   resolution, summary parts, missed questions and stall alarms at each tick.
//! - [`tracked`]: termio's data per host session (its table) and what derives from it: status,
//!   title, link, list entry, project.
//! - [`typist`]: typing into shells (readiness, submitting command lines, the `run` typist).
//! - [`status`]: the status machines: plain shells ([`status::shell`]) and agent sessions
//!   ([`status::agent`]: sources, dialogs, turns, the monitor).
//! - [`stall`]: the stall alarm (`stalled` events).
//! - [`agents`] (the agents registry) and [`transcript`] (reading agents' transcripts).
//!
//! The installers (`termio hooks …`, `termio skill …`, front end `cli::termio_setup`):
//! - [`setup`]: where each agent keeps its config and skills, and the error both installers share.
//! - [`codex_notify`]: the `notify` entry in Codex's `config.toml` (comments kept, via toml_edit).
//! - [`hooks`]: install, remove and inspect termio's status hooks in agents' config files.
//! - [`skill`]: install, remove, print and re-assert the `termio` agent skill (the host
//!   re-asserts it at start while session control is on, through termio's extension).
//! - [`config`]: termio's config file (stall thresholds).

pub mod agents;
pub mod attach;
pub mod codex_notify;
pub mod config;
pub mod error;
pub mod hooks;
pub mod link;
pub mod project;
pub mod reply;
pub mod report;
pub mod service;
pub mod setup;
pub mod skill;
pub mod stall;
pub mod status;
pub mod tracked;
pub mod transcript;
pub mod typist;
pub mod verbs;
pub mod watch;
pub mod wire;

pub use error::{Code, Error};
pub use reply::{SessionEntry, Status};
