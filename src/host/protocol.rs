//! The host protocol: one newline-delimited JSON request per connection, one JSON reply line.
//!
//! Replies are the contract's JSON documents themselves (shared/spec/console2svg-contract.md,
//! "session"), so the CLI prints them as they come. Errors use the contract's envelope
//! `{"schemaVersion":1,"status":"error","error":{"code","message"}}` with the codes of
//! [`ErrorCode`].

use serde::{Deserialize, Serialize};

use crate::term::keys::Input;

/// Largest request line the host reads, bytes (a `send` of 1 MiB of text fits with room).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// The contract's stable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    SessionNotFound,
    SessionExpired,
    SessionExited,
    HostUnavailable,
    UnsupportedKey,
    InvalidCondition,
    WaitTimeout,
    Cancelled,
    SessionNotStarted,
    InvalidRequest,
    InvalidOperation,
    PermissionDenied,
    IoError,
    SessionError,
}

impl ErrorCode {
    /// The code as written in JSON (`session_not_found`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::SessionExpired => "session_expired",
            ErrorCode::SessionExited => "session_exited",
            ErrorCode::HostUnavailable => "host_unavailable",
            ErrorCode::UnsupportedKey => "unsupported_key",
            ErrorCode::InvalidCondition => "invalid_condition",
            ErrorCode::WaitTimeout => "wait_timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::SessionNotStarted => "session_not_started",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidOperation => "invalid_operation",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::IoError => "io_error",
            ErrorCode::SessionError => "session_error",
        }
    }
}

/// A failed request: code and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    pub code: ErrorCode,
    pub message: String,
}

impl HostError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> HostError {
        HostError {
            code,
            message: message.into(),
        }
    }

    /// The contract's error envelope.
    pub fn envelope(&self) -> serde_json::Value {
        serde_json::json!({
            "schemaVersion": 1,
            "status": "error",
            "error": {"code": self.code.as_str(), "message": self.message},
        })
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

/// `wait --until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Until {
    Present,
    Absent,
}

impl Until {
    /// `present` or `absent`.
    pub fn as_str(self) -> &'static str {
        match self {
            Until::Present => "present",
            Until::Absent => "absent",
        }
    }
}

/// A wait condition (session spec §3, plus `--since` and `--line`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// Literal, case-sensitive text; a regular expression (Rust `regex` syntax) when `regex`.
    pub text: String,
    /// `text` is a regular expression (scenario `wait` steps with `regex:`).
    #[serde(default)]
    pub regex: bool,
    pub until: Until,
    /// The condition must hold this long, ms.
    pub stable_for_ms: u64,
    /// A whole right-trimmed row must equal the text.
    pub line: bool,
    /// Only rows written after this version can match.
    pub since: Option<u64>,
}

/// How a session's program is started: the `start` request, and the first entry of the
/// session's journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Launch {
    /// The program and its arguments (see `SpawnSpec::effective_argv`).
    pub argv: Vec<String>,
    /// Absolute working directory.
    pub cwd: String,
    /// Columns and rows, 1–500.
    pub width: u16,
    pub height: u16,
    /// Set TERM/COLORTERM/FORCE_COLOR.
    pub color_env: bool,
    /// Remove CI and TF_BUILD.
    pub delete_ci_env: bool,
    /// The caller's environment ([`crate::pty::SpawnSpec::base_env`]); absent from requests
    /// of older clients (the host's own environment is used then) and never journaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<(String, String)>>,
}

impl Launch {
    /// The PTY spawn this launch describes.
    pub fn spawn_spec(&self) -> crate::pty::SpawnSpec {
        crate::pty::SpawnSpec {
            argv: self.argv.iter().map(Into::into).collect(),
            cwd: self.cwd.clone().into(),
            cols: self.width,
            rows: self.height,
            color_env: self.color_env,
            delete_ci_env: self.delete_ci_env,
            env: Vec::new(),
            base_env: self.env.clone(),
        }
    }

    /// The launch a spawn describes (arguments that are not UTF-8 are converted lossily).
    pub fn of(spec: &crate::pty::SpawnSpec) -> Launch {
        Launch {
            argv: spec
                .argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            cwd: spec.cwd.to_string_lossy().into_owned(),
            width: spec.cols,
            height: spec.rows,
            color_env: spec.color_env,
            delete_ci_env: spec.delete_ci_env,
            env: None,
        }
    }
}

/// A request to the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Request {
    /// Liveness check; the reply carries the host's pid.
    Ping,
    Start(Launch),
    List {
        all: bool,
    },
    Read {
        id: String,
        structured: bool,
    },
    /// Registers a waiter; the reply is the first poll's result plus its `waiter` id.
    WaitStart {
        id: String,
        condition: Condition,
        /// The client's timeout, ms (recorded in the journal; the client enforces it).
        #[serde(default)]
        timeout_ms: Option<u64>,
    },
    /// Blocks at most 100 ms for the waiter to be satisfied.
    WaitPoll {
        id: String,
        waiter: u64,
    },
    /// Drops a waiter (the client gave up: timeout or Ctrl+C).
    WaitEnd {
        id: String,
        waiter: u64,
    },
    Send {
        id: String,
        inputs: Vec<Input>,
    },
    Resize {
        id: String,
        width: u16,
        height: u16,
    },
    Stop {
        id: String,
    },
    StopAll,
    /// The screen as it is now, for rendering by the client (`session capture`/`inspect`).
    Snapshot {
        id: String,
    },
    /// Records a client-side step in the journal (a capture written, an inspection).
    Record {
        id: String,
        entry: Box<super::journal::Entry>,
    },
    /// The session's journal, for `session export`.
    Journal {
        id: String,
    },
    /// A `termio sessions` verb (see `host::termio`); its reply is the termio contract's.
    Termio(super::termio::TermioRequest),
    /// Turns the connection into an event stream (see [`super::events`]): session summaries
    /// as they change, closed sessions and focus moves, after a roster of the present ones.
    Subscribe,
    /// Turns the connection into a stream of the session's screens as they change, until the
    /// session ends (see [`super::events::serve_attach`]).
    Attach {
        id: String,
    },
}

/// Parses a duration: `500ms`, `2s`, `3m`, `1h`, or a bare number of seconds (fractions
/// allowed) (session spec §3).
///
/// Errors: a message quoting the value.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let bad =
        || format!("'{s}' is not a duration (e.g. 500ms, 2s, 3m, 1h; a bare number is seconds)");
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(bad()),
    };
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// Formats a duration in ms the way [`parse_duration`] reads it back: `250ms`, `2s`, `1.5s`.
pub fn format_duration_ms(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
