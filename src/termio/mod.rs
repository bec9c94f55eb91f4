//! termio: the `termio sessions` orchestration namespace on the shared session host
//! (shared/spec/termio-sessions.md).
//!
//! A termio session is a host session (the same host process and socket as `console2svg
//! session`) seen through a project: every caller is resolved to its project ([`project`]),
//! sees and drives only that project's sessions, and addresses them by `termio://session/<uuid>`
//! links ([`link`]). The verbs ([`verbs`]) are functions returning the contract's typed replies
//! ([`reply`]) or its one error shape ([`error`]); the clap front end is `cli::termio`, and the
//! host side (status, list entries, the verbs' handling) is `host::termio`. Agent sessions
//! (`spawn`) add the agents registry ([`agents`]), transcript reading ([`transcript`]) and, on
//! the host, the status machine `host::agent_status`. `watch` ([`watch`]) and `termio attach`
//! ([`attach`]) are clients of the host's event streams (`host::events`).
//!
//! The installers (`termio hooks …`, `termio skill …`, front end `cli::termio_setup`):
//! - [`setup`]: where each agent keeps its config and skills, and the error both installers share.
//! - [`codex_notify`]: the `notify` entry in Codex's `config.toml` (comments kept, via toml_edit).
//! - [`hooks`]: install, remove and inspect termio's status hooks in agents' config files.
//! - [`skill`]: install, remove, print and re-assert the `termio` agent skill (the host
//!   re-asserts it at start while session control is on).

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
pub mod setup;
pub mod skill;
pub mod transcript;
pub mod verbs;
pub mod watch;

pub use error::{Code, Error};
pub use reply::{SessionEntry, Status};
