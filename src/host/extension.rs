//! How a service plugs into the session host without the host knowing it (termio does: see
//! `termio::service`). The host stays a generic PTY session host; an [`Extension`] gets
//!
//! - a start-up hook ([`Extension::host_started`]);
//! - its own requests: every request whose `op` the host does not define itself arrives as a
//!   [`ExtensionRequest`] and goes to the extension of that name ([`Extension::handle`]), with
//!   the registry at hand ([`Context`]);
//! - session notifications: started by the host's `start` request
//!   ([`Extension::session_started`]) and gone from the registry
//!   ([`Extension::session_closed`]);
//! - its part of every session summary the event hub publishes ([`Extension::parts`], under
//!   the extension's name) and, once per monitor tick, extra events: alarms and the summaries
//!   subscribers missed between two ticks ([`Extension::tick`]).
//!
//! The binaries install their extensions when they run the hidden host subcommand
//! ([`super::server::run`]); the host never names them.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::events::{Event, Hub, Summary};
use super::protocol::{ExtensionRequest, HostError, Launch};
use super::session::{Session, Sessions};

/// Work the host runs on a reply thread after the request loop has moved on: the reply,
/// computed where waiting costs no one else anything.
pub type Deferred = Box<dyn FnOnce() -> Result<Value, HostError> + Send>;

/// What an extension's request may use of the host: the registry (to add the sessions it
/// starts and remove the ones it closes; the host publishes both) and the event hub (focus).
pub struct Context<'a> {
    /// The registry: host session id → session.
    pub sessions: &'a mut Sessions,
    /// The event hub.
    pub hub: &'a Hub,
}

/// An extension's part of one session's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Put in the summary under the extension's name.
    pub value: Value,
    /// Where the extension's own state was when `value` was taken (termio: the agent status
    /// sequence); handed back in [`Fresh::mark`].
    pub mark: u64,
}

/// One session at one monitor tick, as an extension sees it.
pub struct Fresh<'a> {
    /// The host session id.
    pub id: &'a str,
    /// The session.
    pub session: &'a Arc<Session>,
    /// The summary about to be published (when it changed).
    pub summary: &'a Summary,
    /// The [`Part::mark`] of this extension's part of `summary` (0 without a part).
    pub mark: u64,
}

/// What an extension adds to one monitor tick.
#[derive(Debug, Default)]
pub struct Tick {
    /// Events published before the tick's summaries (termio: `stalled` alarms).
    pub alarms: Vec<Event>,
    /// Per session id: summaries the session passed through since the last tick, oldest
    /// first, published before its summary now (which then follows even when unchanged).
    pub missed: HashMap<String, Vec<Summary>>,
}

/// A service plugged into the host. Called from the host's request loop (requests,
/// notifications), its monitor thread (parts, ticks) and subscribers' stream threads (parts), so it keeps
/// its own state behind its own locks, keyed by host session id. It must never call back
/// into the [`Hub`] while holding a lock the hub's callers may wait for.
pub trait Extension: Send + Sync {
    /// The extension's name: the `op` of its requests and the key of its summary part.
    fn name(&self) -> &'static str;

    /// Runs once when the host has bound its socket, before it serves requests. Must not
    /// fail the host (errors are the extension's to swallow).
    fn host_started(&self) {}

    /// A session started by the host's own `start` request joined the registry; `launch` is
    /// how it was started. (Sessions the extension starts itself it knows already.)
    fn session_started(&self, _session: &Arc<Session>, _launch: &Launch) {}

    /// Session `id` left the registry (stopped, closed, or its retention ran out), after its
    /// `closed` event was published.
    fn session_closed(&self, _id: &str) {}

    /// Handles one request of the extension's op on the host's request loop: registry changes
    /// happen here, everything slow goes into the returned [`Deferred`]. The reply is the
    /// extension's own document.
    fn handle(&self, request: ExtensionRequest, host: Context<'_>) -> Deferred;

    /// The extension's part of each session's summary now, in order (`None`: no part).
    /// Takes each session's lock briefly: never called while holding one.
    fn parts(&self, sessions: &[Arc<Session>]) -> Vec<Option<Part>>;

    /// Runs once per monitor tick with the tick's summaries (outside the hub's lock; it may
    /// take its time, e.g. run `git`).
    fn tick(&self, _fresh: &[Fresh<'_>]) -> Tick {
        Tick::default()
    }
}
