//! termio: the orchestration side (see DESIGN.md). This file declares only the installer modules;
//! the sessions modules are declared by their own branch and merged here.
//!
//! - [`setup`]: where each agent keeps its config and skills, and the error type both installers share.
//! - [`codex_notify`]: the `notify` entry in Codex's `config.toml` (comments kept, via toml_edit).
//! - [`hooks`]: install, remove and inspect termio's status hooks in agents' config files.
//! - [`skill`]: install, remove, print and re-assert the `termio` agent skill.

pub mod codex_notify;
pub mod hooks;
pub mod setup;
pub mod skill;
