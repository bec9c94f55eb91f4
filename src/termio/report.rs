//! `termio agent report <state> --agent <name> --event <Event>`: the command status hooks run
//! (shared/notes/agents.md, "The termio contract on the hook side"). It reads the hook's stdin
//! JSON (at most [`STDIN_LIMIT`] bytes, for at most [`STDIN_WAIT`]), takes the session from
//! `TERMIO_SESSION` (the host may book it to another session by the agent's own session id in
//! the input, see [`super::status::monitor::route`]; without `TERMIO_SESSION`, by that id
//! alone), and sends one `Report` request to a running host (it never starts one).
//!
//! It must never block or break the agent: it gives up after [`HOST_WAIT`], prints nothing
//! (except `{}` for Cursor, whose hooks must print JSON), and always exits 0. Installed hooks
//! run exactly `termio agent report <state> --agent <a> --event <E> >/dev/null 2>&1 || true`.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde_json::Value;

use super::wire::{self, TermioRequest};
use crate::host::protocol::Request;

/// Longest the hook's stdin is read.
pub const STDIN_WAIT: Duration = Duration::from_millis(500);

/// Most stdin bytes read.
pub const STDIN_LIMIT: u64 = 4 * 1024 * 1024;

/// Longest the host may take to take the report.
pub const HOST_WAIT: Duration = Duration::from_secs(2);

/// The states a report may give.
pub const STATES: &[&str] = &["working", "idle", "done", "needs-you", "auto"];

/// Runs the report; returns the exit code (always 0). `payload` is a trailing JSON argument
/// (Codex's `notify` appends the turn's JSON as the last argument); without it the hook's
/// stdin is read.
pub fn run(state: &str, agent: &str, event: &str, payload: Option<&str>) -> i32 {
    if agent == "cursor" {
        println!("{{}}");
    }
    let input = match payload {
        Some(p) => serde_json::from_str(p).unwrap_or(Value::Null),
        None => read_stdin(),
    };
    // Without `TERMIO_SESSION` (a hook run by an agent's daemon started outside termio), the
    // host may still know the session by the agent's own session id in the input.
    let session = std::env::var("TERMIO_SESSION")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| super::status::monitor::agent_session_id(&input).map(|_| String::new()));
    let Some(session) = session else {
        return 0;
    };
    let request = wire::request(&TermioRequest::Report {
        // The bare uuid, as termio sets it; a pasted link is accepted too.
        session: {
            let s = session.trim();
            s.strip_prefix(super::link::SCHEME).unwrap_or(s).to_string()
        },
        state: state.to_string(),
        agent: agent.to_string(),
        event: event.to_string(),
        input,
    });
    let _ = send(&request);
    0
}

fn send(request: &Request) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(crate::host::paths::socket_path())?;
    stream.set_write_timeout(Some(HOST_WAIT))?;
    stream.set_read_timeout(Some(HOST_WAIT))?;
    let mut line = serde_json::to_string(request).map_err(std::io::Error::other)?;
    line.push('\n');
    stream.write_all(line.as_bytes())?;
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    Ok(())
}

/// The hook's stdin as JSON: `null` when stdin is a terminal, empty, not JSON, or slower than
/// [`STDIN_WAIT`].
fn read_stdin() -> Value {
    if rustix::termios::isatty(std::io::stdin()) {
        return Value::Null;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::stdin().take(STDIN_LIMIT).read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    match rx.recv_timeout(STDIN_WAIT) {
        Ok(buf) => serde_json::from_slice(&buf).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    }
}
