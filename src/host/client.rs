//! The host's client side: connect (starting the host on demand), send one request, read one
//! reply within 5 s, and let Ctrl+C cancel the wait.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::paths;
use super::protocol::{ErrorCode, HostError, Request};

/// How long a client waits for a reply (session spec: "bounded to five seconds").
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(5);

static INTERRUPTED: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Makes Ctrl+C (SIGINT), SIGTERM and SIGHUP set a flag that cancels the current wait instead
/// of killing the process, so a `cancelled` reply can be printed and nothing is left behind.
/// Safe to call more than once. The handler only sets the flag (signal-hook's `flag`), so no
/// thread is started: this is on every client's start-up path.
pub fn install_interrupt_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for signal in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            let _ = signal_hook::flag::register(signal, Arc::clone(&INTERRUPTED));
        }
    });
}

/// True once Ctrl+C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

fn cancelled() -> HostError {
    HostError::new(ErrorCode::Cancelled, "cancelled by the user")
}

/// Connects to the host, starting it first if no host answers.
///
/// Connecting is bounded by [`REPLY_TIMEOUT`] like the reply: the socket is connected
/// non-blocking, so a host that is alive but stalled, its accept backlog full, makes the
/// connect retry until the deadline instead of blocking in `connect(2)` forever. A socket
/// nobody listens on (missing, or refused) starts a new host once.
///
/// Errors: `host_unavailable` when no host can be reached within [`REPLY_TIMEOUT`] (also a
/// host that never accepts); `cancelled` on Ctrl+C; `permission_denied` when the runtime
/// directory is not ours.
pub fn connect() -> Result<UnixStream, HostError> {
    connect_to(true)
}

/// [`connect`]; with `may_start` false no host is started: the request is about state only the
/// host serving now has (a wait's waiter), so when that host is gone it is `host_unavailable`
/// at once, not a question for a new host.
fn connect_to(may_start: bool) -> Result<UnixStream, HostError> {
    let socket = paths::socket_path();
    let deadline = Instant::now() + REPLY_TIMEOUT;
    let mut started = !may_start;
    loop {
        let e = match connect_nonblocking(&socket, deadline) {
            Ok(s) => return Ok(s),
            Err(e) => e,
        };
        if interrupted() {
            return Err(HostError::new(
                ErrorCode::Cancelled,
                format!("cancelled: {}", std::io::Error::from(e)),
            ));
        }
        // EAGAIN: a host is listening but its backlog is full (busy or stalled): wait for
        // it, never start a second one.
        let busy = e == rustix::io::Errno::AGAIN;
        if !busy && !started {
            paths::ensure_runtime_dir()
                .map_err(|e| HostError::new(ErrorCode::PermissionDenied, e))?;
            start_host()?;
            started = true;
        }
        if Instant::now() >= deadline || (!busy && !may_start) {
            let why = if busy {
                format!(
                    "the host at {} accepted no connection within {} (busy or stalled)",
                    socket.display(),
                    super::protocol::format_duration_ms(REPLY_TIMEOUT.as_millis() as u64)
                )
            } else {
                format!(
                    "no host at {}: {}",
                    socket.display(),
                    std::io::Error::from(e)
                )
            };
            return Err(HostError::new(ErrorCode::HostUnavailable, why));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One connection attempt that never blocks past `deadline`: a non-blocking `connect(2)`
/// (Linux answers at once for a Unix socket: connected, `EAGAIN` when the backlog is full,
/// `ENOENT`/`ECONNREFUSED` when nobody listens; elsewhere `EINPROGRESS` is polled until
/// `deadline`), then the stream is made blocking again.
fn connect_nonblocking(
    path: &std::path::Path,
    deadline: Instant,
) -> Result<UnixStream, rustix::io::Errno> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::io::Errno;
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketType};
    let fd = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None)?;
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC)?;
    rustix::io::ioctl_fionbio(&fd, true)?;
    let addr = SocketAddrUnix::new(path)?;
    match rustix::net::connect(&fd, &addr) {
        Ok(()) => {}
        Err(Errno::INPROGRESS) => loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let timeout = Timespec {
                tv_sec: left.as_secs() as _,
                tv_nsec: left.subsec_nanos() as _,
            };
            let mut fds = [PollFd::new(&fd, PollFlags::OUT)];
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) => return Err(Errno::AGAIN),
                Ok(_) => {
                    rustix::net::sockopt::socket_error(&fd)??;
                    break;
                }
                Err(Errno::INTR) if !interrupted() => {}
                Err(e) => return Err(e),
            }
        },
        Err(e) => return Err(e),
    }
    rustix::io::ioctl_fionbio(&fd, false)?;
    Ok(UnixStream::from(fd))
}

/// Starts the host: this executable re-run with the single argument `__host` (both binaries),
/// in a new session (`setsid`), stdio closed, not waited for.
fn start_host() -> Result<(), HostError> {
    let exe = std::env::current_exe()
        .map_err(|e| HostError::new(ErrorCode::HostUnavailable, e.to_string()))?;
    let mut cmd = Command::new(exe);
    cmd.arg("__host")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let _ = rustix::process::setsid();
            Ok(())
        });
    }
    cmd.spawn().map_err(|e| {
        HostError::new(
            ErrorCode::HostUnavailable,
            format!("cannot start the host: {e}"),
        )
    })?;
    Ok(())
}

/// Sends `request` and returns the host's reply document (an error envelope becomes `Err`).
///
/// Errors: `host_unavailable` when no reply arrives within [`REPLY_TIMEOUT`] or the host
/// closes the connection; `cancelled` on Ctrl+C; the host's own error otherwise.
pub fn request(request: &Request) -> Result<Value, HostError> {
    request_inner(request, true, REPLY_TIMEOUT)
}

/// Like [`request`], with its own reply timeout instead of [`REPLY_TIMEOUT`] (termio's
/// `TERMIO_CLI_TIMEOUT`, widened under `--wait`).
///
/// Errors: as [`request`].
pub fn request_with_timeout(request: &Request, timeout: Duration) -> Result<Value, HostError> {
    request_inner(request, true, timeout)
}

/// Like [`request`], but Ctrl+C does not abandon it: for the clean-up a cancelled command
/// still owes the host (ending a wait).
pub fn request_despite_interrupt(request: &Request) -> Result<Value, HostError> {
    request_inner(request, false, REPLY_TIMEOUT)
}

fn request_inner(
    request: &Request,
    honor_interrupt: bool,
    timeout: Duration,
) -> Result<Value, HostError> {
    let reply = reply_line(request, honor_interrupt, timeout)?;
    let value: Value = serde_json::from_slice(&reply).map_err(unreadable)?;
    if value["status"] == "error" && value.get("result").is_none() {
        let code = serde_json::from_value::<ErrorCode>(value["error"]["code"].clone())
            .unwrap_or(ErrorCode::SessionError);
        let message = value["error"]["message"].as_str().unwrap_or("").to_string();
        return Err(HostError::new(code, message));
    }
    Ok(value)
}

/// A reply as the host wrote it, for printing as is: [`Raw::line`] is one JSON document and
/// its newline, byte for byte what [`request`]'s value prints as, without building the value.
#[derive(Debug, Clone)]
pub struct Raw {
    /// The reply line, newline included.
    pub line: Vec<u8>,
    /// `error.message` of a reply whose `status` is `"error"` but which still carries a result
    /// (the caller prints it and exits 1); `None` for a success.
    pub failed: Option<String>,
}

/// Like [`request`], but the reply comes back as the host's line ([`Raw`]), only scanned for an
/// error envelope: the client's compact path for replies printed unchanged (`session read`,
/// `list`, `send`), which never builds the reply as a `Value` and prints it again.
///
/// Errors: as [`request`].
pub fn request_raw(request: &Request) -> Result<Raw, HostError> {
    /// Presence of a field, whatever its value (`null` included, as `Value::get` sees it).
    #[derive(Default)]
    struct Present(bool);
    impl<'de> serde::Deserialize<'de> for Present {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Present, D::Error> {
            serde::de::IgnoredAny::deserialize(d).map(|_| Present(true))
        }
    }
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        status: Option<String>,
        #[serde(default)]
        error: Option<Value>,
        #[serde(default)]
        result: Present,
    }
    let line = reply_line(request, true, REPLY_TIMEOUT)?;
    let head: Head = serde_json::from_slice(&line).map_err(unreadable)?;
    if head.status.as_deref() != Some("error") {
        return Ok(Raw { line, failed: None });
    }
    let error = head.error.unwrap_or_default();
    let message = error["message"].as_str().unwrap_or("").to_string();
    if !head.result.0 {
        let code = serde_json::from_value::<ErrorCode>(error["code"].clone())
            .unwrap_or(ErrorCode::SessionError);
        return Err(HostError::new(code, message));
    }
    Ok(Raw {
        line,
        failed: Some(message),
    })
}

fn unreadable(e: serde_json::Error) -> HostError {
    HostError::new(
        ErrorCode::HostUnavailable,
        format!("unreadable reply from the host: {e}"),
    )
}

/// Sends `request` and reads the reply line (newline included) within `timeout`.
///
/// Errors: `host_unavailable` when no reply arrives in time or the host closes the connection
/// first; `cancelled` on Ctrl+C when `honor_interrupt`.
fn reply_line(
    request: &Request,
    honor_interrupt: bool,
    timeout: Duration,
) -> Result<Vec<u8>, HostError> {
    let mut stream = send_request(request)?;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let deadline = Instant::now() + timeout;
    let mut reply = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        if honor_interrupt && interrupted() {
            return Err(cancelled());
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                reply.extend_from_slice(&buf[..n]);
                if reply.ends_with(b"\n") {
                    reply.pop();
                    break;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) =>
            {
                if Instant::now() >= deadline {
                    return Err(HostError::new(
                        ErrorCode::HostUnavailable,
                        format!(
                            "the host did not answer within {}",
                            super::protocol::format_duration_ms(timeout.as_millis() as u64)
                        ),
                    ));
                }
            }
            Err(e) => {
                return Err(HostError::new(
                    ErrorCode::HostUnavailable,
                    format!("lost the host: {e}"),
                ))
            }
        }
    }
    if reply.is_empty() {
        return Err(HostError::new(
            ErrorCode::HostUnavailable,
            "the host closed the connection without a reply",
        ));
    }
    if !reply.ends_with(b"\n") {
        reply.push(b'\n');
    }
    Ok(reply)
}

/// An open stream from the host (`subscribe`, `attach`): one JSON value per line, for as long
/// as the host serves it.
pub struct Stream {
    stream: UnixStream,
    pending: Vec<u8>,
}

/// How a [`Stream`] read ended without a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// Nothing arrived within the timeout; the stream is still open.
    Quiet,
    /// The host closed the stream (it went away, or the stream is over).
    Closed,
}

/// Connects and writes `request` as one line.
///
/// Errors: `host_unavailable` when the host cannot be reached or written to.
fn send_request(request: &Request) -> Result<UnixStream, HostError> {
    // A wait's later polls belong to the host that registered the waiter.
    let may_start = !matches!(request, Request::WaitPoll { .. } | Request::WaitEnd { .. });
    let mut stream = connect_to(may_start)?;
    let mut line = serde_json::to_vec(request)
        .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e.to_string()))?;
    line.push(b'\n');
    stream.write_all(&line).map_err(|e| {
        HostError::new(
            ErrorCode::HostUnavailable,
            format!("cannot send to the host: {e}"),
        )
    })?;
    Ok(stream)
}

/// Sends a streaming request and reads the host's acknowledgement (the first line).
///
/// Errors: as [`request`]; the host's error envelope (e.g. `session_not_found`) instead of an
/// acknowledgement becomes `Err`.
pub fn open_stream(request: &Request) -> Result<(Value, Stream), HostError> {
    let stream = send_request(request)?;
    let mut s = Stream {
        stream,
        pending: Vec::new(),
    };
    let ack = match s.next(REPLY_TIMEOUT) {
        Ok(v) => v,
        Err(StreamEnd::Quiet) => {
            return Err(HostError::new(
                ErrorCode::HostUnavailable,
                "the host did not answer within 5 s",
            ))
        }
        Err(StreamEnd::Closed) => {
            return Err(HostError::new(
                ErrorCode::HostUnavailable,
                "the host closed the connection without a reply",
            ))
        }
    };
    if ack["status"] == "error" {
        let code = serde_json::from_value::<ErrorCode>(ack["error"]["code"].clone())
            .unwrap_or(ErrorCode::SessionError);
        let message = ack["error"]["message"].as_str().unwrap_or("").to_string();
        return Err(HostError::new(code, message));
    }
    Ok((ack, s))
}

impl Stream {
    /// The next value, waiting at most `timeout` (and returning [`StreamEnd::Quiet`] early,
    /// within 50 ms, after Ctrl+C so the caller can end cleanly).
    ///
    /// Errors: [`StreamEnd::Closed`] when the host closed the stream or sent a line that is not
    /// JSON.
    pub fn next(&mut self, timeout: Duration) -> Result<Value, StreamEnd> {
        let deadline = Instant::now() + timeout;
        let _ = self
            .stream
            .set_read_timeout(Some(Duration::from_millis(50)));
        let mut buf = [0u8; 64 * 1024];
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return serde_json::from_slice(&line).map_err(|_| StreamEnd::Closed);
            }
            if interrupted() || Instant::now() >= deadline {
                return Err(StreamEnd::Quiet);
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(StreamEnd::Closed),
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) => {}
                Err(_) => return Err(StreamEnd::Closed),
            }
        }
    }
}

/// How a [`wait`] ended, with the host's last reply (its `waiter` field removed).
#[derive(Debug)]
pub enum WaitEnd {
    /// `result` is `matched`.
    Matched(Value),
    /// `result` is `session-ended`: the program ended before the condition was met.
    SessionEnded(Value),
    /// The timeout passed; the reply is the host's answer to `WaitEnd` (the screen now) when it
    /// had one, else the last poll's.
    TimedOut(Value),
    /// `stop` said to give up (Ctrl+C, a client that went away); the reply as for `TimedOut`.
    Stopped(Value),
}

/// A `wait` on session `id` as the session contract describes it: registers a waiter
/// (`WaitStart`), polls it (`WaitPoll`, each at most 100 ms in the host) until it matches, the
/// session ends, `timeout` passes or `stop` returns true, and then ends the waiter (`WaitEnd`).
/// Shared by `session wait` and the MCP server's `session_wait`.
///
/// Errors: the host's, for the start and for a poll (a poll cut short by Ctrl+C is not one:
/// the wait ends as `Stopped`).
pub fn wait(
    id: &str,
    condition: super::protocol::Condition,
    timeout: Option<Duration>,
    stop: impl Fn() -> bool,
) -> Result<WaitEnd, HostError> {
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut reply = request(&Request::WaitStart {
        id: id.into(),
        condition,
        timeout_ms: timeout.map(|t| t.as_millis() as u64),
    })?;
    let waiter = reply["waiter"].as_u64().unwrap_or(0);
    if let Some(map) = reply.as_object_mut() {
        map.remove("waiter");
    }
    loop {
        match reply["result"].as_str() {
            Some("matched") => return Ok(WaitEnd::Matched(reply)),
            Some("session-ended") => return Ok(WaitEnd::SessionEnded(reply)),
            _ => {}
        }
        let timed_out = deadline.is_some_and(|d| Instant::now() >= d);
        if timed_out || stop() {
            // Ending the wait also brings back the screen as it is now.
            if let Ok(last) = request_despite_interrupt(&Request::WaitEnd {
                id: id.into(),
                waiter,
            }) {
                if last.get("screen").is_some() {
                    reply = last;
                }
            }
            return Ok(if timed_out {
                WaitEnd::TimedOut(reply)
            } else {
                WaitEnd::Stopped(reply)
            });
        }
        match request(&Request::WaitPoll {
            id: id.into(),
            waiter,
        }) {
            Ok(r) => reply = r,
            // Ctrl+C during a poll: end the wait above, so the reply still has its result.
            Err(e) if e.code == ErrorCode::Cancelled => {}
            Err(e) => return Err(e),
        }
    }
}
