//! The live status of termio's sessions (shared/spec/termio-sessions.md, "Live agent status"):
//! a plain terminal running a shell follows the PTY's foreground process group ([`shell`]);
//! an agent session has the agent status machine, its monitor and its turns ([`agent`]).

pub mod agent;
pub mod shell;
