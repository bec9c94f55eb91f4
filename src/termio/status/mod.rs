//! The live status of termio's sessions (shared/spec/termio-sessions.md, "Live agent status"):
//! a plain terminal running a shell follows the PTY's foreground process group ([`shell`]);
//! an agent session has the agent status machine ([`agent`]: sources, dialogs, turns; pure,
//! the time and observations passed in) fed by its monitor thread ([`monitor`]: looks,
//! typing, hook reports, turn probes).

pub mod agent;
pub mod monitor;
pub mod shell;
