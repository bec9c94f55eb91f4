//! termio: the `termio sessions` orchestration namespace on the shared session host
//! (shared/spec/termio-sessions.md).
//!
//! A termio session is a host session (the same host process and socket as `console2svg
//! session`) seen through a project: every caller is resolved to its project ([`project`]),
//! sees and drives only that project's sessions, and addresses them by `termio://session/<uuid>`
//! links ([`link`]). The verbs ([`verbs`]) are functions returning the contract's typed replies
//! ([`reply`]) or its one error shape ([`error`]); the clap front end is `cli::termio`, and the
//! host side (status, list entries, the verbs' handling) is `host::termio`.

pub mod attach;
pub mod config;
pub mod error;
pub mod link;
pub mod project;
pub mod reply;
pub mod verbs;
pub mod watch;

pub use error::{Code, Error};
pub use reply::{SessionEntry, Status};
