//! Each live session's screen as an MCP resource, `console2svg://session/<id>/screen` (plain
//! text, one line per row of the viewport), with subscriptions: a subscribed client gets
//! `notifications/resources/updated` when the screen changes, debounced ([`Debounce`]).
//!
//! A subscription is a thread on the host's `attach` stream of the session
//! ([`crate::host::events::serve_attach`]: a frame per change, at most one per 33 ms); it ends
//! on unsubscribe, when the session ends (after a last notification) or when the client goes.
//!
//! termio's watch is a resource too, [`super::termio::WATCH_URI`] (JSON): the roster of the
//! server's project and the `termio sessions watch --json` lines (every state) since the
//! client subscribed; a subscription is a thread on the host's event stream through
//! [`crate::termio::watch::Watcher`], and each new line is a notification.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rmcp::model::Resource;

use crate::host::client::{self, StreamEnd};
use crate::host::events::Frame;
use crate::host::protocol::{ErrorCode, HostError, Request};

const PREFIX: &str = "console2svg://session/";
const SUFFIX: &str = "/screen";

/// The screen resource's URI of session `id`.
pub fn uri(id: &str) -> String {
    format!("{PREFIX}{id}{SUFFIX}")
}

/// The session id a screen resource URI names.
///
/// Errors: `invalid_request` for any other URI.
pub fn session_of(uri: &str) -> Result<&str, HostError> {
    uri.strip_prefix(PREFIX)
        .and_then(|rest| rest.strip_suffix(SUFFIX))
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .ok_or_else(|| {
            HostError::new(
                ErrorCode::InvalidRequest,
                format!("not a console2svg resource: {uri} (expected {PREFIX}<id>{SUFFIX})"),
            )
        })
}

/// The screen resources of the running sessions, and the watch resource of the server's
/// termio project when it has one.
///
/// Errors: the host's (`host_unavailable`, …).
pub fn list() -> Result<Vec<Resource>, HostError> {
    let reply = client::request(&Request::List { all: false })?;
    let sessions = reply["sessions"].as_array().cloned().unwrap_or_default();
    let watch = super::termio::project().ok().map(|project| {
        Resource::new(super::termio::WATCH_URI, "termio watch")
            .with_title("termio: status changes of this project's sessions")
            .with_description(format!(
                "JSON: the roster of the termio sessions of {project} and every status change (working, idle, done, needs-you, stalled) since you subscribed, numbered by seq; subscribe to be told of each new one"
            ))
            .with_mime_type("application/json")
    });
    Ok(watch.into_iter().chain(sessions
        .iter()
        .filter_map(|s| {
            let id = s["sessionId"].as_str()?;
            Some(
                Resource::new(uri(id), format!("{id} screen"))
                    .with_title(format!("Screen of session {id}"))
                    .with_description(format!(
                        "The visible screen of session {id} as text ({}×{} cells); subscribe to be told when it changes",
                        s["width"], s["height"]
                    ))
                    .with_mime_type("text/plain"),
            )
        }))
        .collect())
}

/// The screen's text now (rows joined by newlines, trailing blanks trimmed), or the watch
/// document ([`super::termio::watch_document`]) with the lines `subscriptions` kept.
///
/// Errors: `invalid_request` for a bad URI; the host's (`session_not_found`, …).
pub fn read(uri: &str, subscriptions: &Subscriptions) -> Result<String, HostError> {
    if uri == super::termio::WATCH_URI {
        return super::termio::watch_document(&subscriptions.watch_log.lock());
    }
    let id = session_of(uri)?;
    let mut snap = client::request(&Request::Snapshot { id: id.into() })?;
    let screen: crate::term::Screen =
        serde_json::from_value(snap["screen"].take()).map_err(|e| {
            HostError::new(
                ErrorCode::SessionError,
                format!("unreadable screen from the host: {e}"),
            )
        })?;
    Ok(screen.text())
}

/// Trailing-edge debounce of screen changes: a notification is due once the screen has been
/// quiet for [`Debounce::QUIET`], or [`Debounce::MAX_DELAY`] after the first unreported
/// change while it keeps changing. Times are passed in, so it is tested without a clock.
#[derive(Debug, Default)]
pub struct Debounce {
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Debounce {
    /// Quiet time after the last change before notifying.
    pub const QUIET: Duration = Duration::from_millis(100);
    /// Longest a change waits for its notification while the screen keeps changing.
    pub const MAX_DELAY: Duration = Duration::from_millis(500);

    /// A change seen at `now`.
    pub fn change(&mut self, now: Instant) {
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// Whether a notification is due at `now`; if so, the pending change counts as reported.
    pub fn due(&mut self, now: Instant) -> bool {
        let (Some(first), Some(last)) = (self.first, self.last) else {
            return false;
        };
        if now.duration_since(last) >= Self::QUIET || now.duration_since(first) >= Self::MAX_DELAY {
            self.first = None;
            self.last = None;
            true
        } else {
            false
        }
    }

    /// Whether a change is waiting to be reported.
    pub fn pending(&self) -> bool {
        self.first.is_some()
    }
}

/// The live subscriptions: URI → the flag that ends its thread; and the watch resource's
/// lines.
#[derive(Default)]
pub struct Subscriptions {
    live: Mutex<HashMap<String, Arc<AtomicBool>>>,
    watch_log: Arc<Mutex<super::termio::WatchLog>>,
}

impl Subscriptions {
    /// Subscribes to `uri`: checks the session exists (the attach acknowledgement), then
    /// watches it on a thread, calling `notify` for each debounced change and once when the
    /// session ends. A second subscription to the same URI keeps the first.
    ///
    /// Errors: `invalid_request` for a bad URI; the host's (`session_not_found`, …).
    pub fn subscribe(
        self: &Arc<Self>,
        uri: &str,
        closing: Arc<AtomicBool>,
        notify: impl Fn() + Send + 'static,
    ) -> Result<(), HostError> {
        if uri == super::termio::WATCH_URI {
            return self.subscribe_watch(closing, notify);
        }
        let id = session_of(uri)?;
        if self.live.lock().contains_key(uri) {
            return Ok(());
        }
        let (_ack, mut stream) = client::open_stream(&Request::Attach { id: id.into() })?;
        self.spawn(uri, "mcp-subscription", closing, move |stopped| {
            let mut debounce = Debounce::default();
            let mut first_frame = true;
            while !stopped() {
                match stream.next(Duration::from_millis(50)) {
                    // The first frame is the screen as it was when subscribing.
                    Ok(frame) => match serde_json::from_value::<Frame>(frame) {
                        Ok(Frame::Screen { .. }) if first_frame => first_frame = false,
                        Ok(Frame::Screen { .. }) => debounce.change(Instant::now()),
                        Ok(Frame::Ended { .. }) | Err(_) => {
                            notify();
                            break;
                        }
                    },
                    Err(StreamEnd::Quiet) => {}
                    Err(StreamEnd::Closed) => {
                        if debounce.pending() {
                            notify();
                        }
                        break;
                    }
                }
                if debounce.due(Instant::now()) {
                    notify();
                }
            }
        })
    }

    /// Subscribes to the watch resource: the project's lines of the host's event stream,
    /// every state, each kept in the log and notified.
    fn subscribe_watch(
        self: &Arc<Self>,
        closing: Arc<AtomicBool>,
        notify: impl Fn() + Send + 'static,
    ) -> Result<(), HostError> {
        let uri = super::termio::WATCH_URI;
        if self.live.lock().contains_key(uri) {
            return Ok(());
        }
        let project = super::termio::project()?;
        let (_ack, mut stream) = client::open_stream(&Request::Subscribe)?;
        let states = crate::termio::watch::STATES.iter().map(|s| s.to_string());
        let mut watcher = crate::termio::watch::Watcher::new(project, states.collect(), false);
        let log = Arc::clone(&self.watch_log);
        self.spawn(uri, "mcp-watch", closing, move |stopped| {
            while !stopped() {
                let mut lines = watcher.overdue(Instant::now());
                match stream.next(Duration::from_millis(250)) {
                    Ok(value) => {
                        if let Ok(event) = serde_json::from_value(value) {
                            lines.extend(watcher.event(event, Instant::now()));
                        }
                    }
                    Err(StreamEnd::Quiet) => {}
                    Err(StreamEnd::Closed) => break,
                }
                if !lines.is_empty() {
                    let mut log = log.lock();
                    lines.into_iter().for_each(|l| log.push(l));
                    drop(log);
                    notify();
                }
            }
        })
    }

    /// Runs subscription `uri`'s `body` on a thread named `name`, registered as live until it
    /// returns; `body` is given whether it must stop (unsubscribed, or the server closing).
    ///
    /// Errors: `io_error` when the thread cannot start.
    fn spawn(
        self: &Arc<Self>,
        uri: &str,
        name: &str,
        closing: Arc<AtomicBool>,
        body: impl FnOnce(&dyn Fn() -> bool) + Send + 'static,
    ) -> Result<(), HostError> {
        let stop = Arc::new(AtomicBool::new(false));
        self.live.lock().insert(uri.to_string(), Arc::clone(&stop));
        let this = Arc::clone(self);
        let uri = uri.to_string();
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                body(&|| stop.load(Ordering::SeqCst) || closing.load(Ordering::SeqCst));
                let mut live = this.live.lock();
                if live.get(&uri).is_some_and(|s| Arc::ptr_eq(s, &stop)) {
                    live.remove(&uri);
                }
            })
            .map_err(|e| {
                HostError::new(
                    ErrorCode::IoError,
                    format!("cannot start a subscription: {e}"),
                )
            })?;
        Ok(())
    }

    /// Ends the subscription to `uri` (nothing when there is none).
    pub fn unsubscribe(&self, uri: &str) {
        if let Some(stop) = self.live.lock().remove(uri) {
            stop.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_a_session_screen() {
        assert_eq!(uri("s_1"), "console2svg://session/s_1/screen");
        assert_eq!(
            session_of("console2svg://session/s_1/screen").unwrap(),
            "s_1"
        );
        for bad in [
            "console2svg://session//screen",
            "console2svg://session/s_1",
            "console2svg://session/a/b/screen",
            "file:///etc/passwd",
        ] {
            assert_eq!(
                session_of(bad).unwrap_err().code,
                ErrorCode::InvalidRequest,
                "{bad}"
            );
        }
    }

    #[test]
    fn changes_are_reported_after_a_quiet_spell_or_the_longest_delay() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut d = Debounce::default();
        assert!(!d.due(ms(0)), "nothing changed");
        d.change(ms(0));
        d.change(ms(60));
        assert!(!d.due(ms(120)), "still changing");
        assert!(d.due(ms(160)), "quiet for 100 ms");
        assert!(!d.due(ms(300)), "reported once");
        // A screen that never stops changing is still reported every 500 ms.
        for n in (1000..1500).step_by(50) {
            d.change(ms(n));
            assert!(!d.due(ms(n)), "at {n}");
        }
        d.change(ms(1500));
        assert!(d.due(ms(1500)));
    }
}
