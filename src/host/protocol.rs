//! The host protocol: one newline-delimited JSON request per connection, one JSON reply line.
//!
//! Replies are the contract's JSON documents themselves (shared/spec/console2svg-contract.md,
//! "session"), so the CLI prints them as they come. Errors use the contract's envelope
//! `{"schemaVersion":1,"status":"error","error":{"code","message"}}` with the codes of
//! [`ErrorCode`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::term::keys::Input;

/// A session's id: `s_` followed by 32 lowercase hex digits from the OS's random source, as the
/// host makes them ([`SessionId::generate`]). On the wire a plain JSON string. Any string
/// deserialises (an id the host never made is simply not found: `session_not_found`);
/// [`SessionId::is_well_formed`] tells the host's own apart (crash-recovery files are named by
/// it). Derefs to `str`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(String);

impl SessionId {
    /// A fresh id: 128 bits from `/dev/urandom`.
    pub fn generate() -> SessionId {
        use std::io::Read;
        let mut bytes = [0u8; 16];
        if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
            let _ = f.read_exact(&mut bytes);
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        SessionId(format!("s_{hex}"))
    }

    /// Whether this is an id as the host makes them (`s_` + 32 lowercase hex digits).
    pub fn is_well_formed(&self) -> bool {
        SessionId::well_formed(&self.0)
    }

    /// Whether `id` is an id as the host makes them (`s_` + 32 lowercase hex digits).
    pub fn well_formed(id: &str) -> bool {
        id.strip_prefix("s_").is_some_and(|hex| {
            hex.len() == 32
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for SessionId {
    fn from(id: String) -> SessionId {
        SessionId(id)
    }
}

impl From<&str> for SessionId {
    fn from(id: &str) -> SessionId {
        SessionId(id.to_string())
    }
}

impl std::ops::Deref for SessionId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SessionId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The duration parser and formatter, re-exported for the clients of the request types (their
/// home is [`crate::duration`]).
pub use crate::duration::{format_duration_ms, parse_duration};

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
    /// Rows of scrollback the session keeps, 0–[`crate::term::MAX_SCROLLBACK`]; absent: the
    /// host's default ([`crate::host::session::DEFAULT_SCROLLBACK`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrollback: Option<usize>,
    /// Keep the output with its timing for `session export x.cast` (`session start --record`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub record: bool,
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
            scrollback: None,
            record: false,
        }
    }
}

/// A request to the host.
///
/// Serialised by hand around the derived form (`remote = "Self"`) so that an op the host does
/// not define itself travels as an [`ExtensionRequest`]: `{"op": …}` with the extension's own
/// fields, which the host hands to the extension serving that op without reading them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "op",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    remote = "Self"
)]
pub enum Request {
    /// Liveness check; the reply carries the host's pid.
    Ping,
    Start(Launch),
    List {
        all: bool,
    },
    Read {
        id: SessionId,
        structured: bool,
    },
    /// Registers a waiter; the reply is the first poll's result plus its `waiter` id.
    WaitStart {
        id: SessionId,
        condition: Condition,
        /// The client's timeout, ms (recorded in the journal; the client enforces it).
        #[serde(default)]
        timeout_ms: Option<u64>,
    },
    /// Blocks at most 100 ms for the waiter to be satisfied.
    WaitPoll {
        id: SessionId,
        waiter: u64,
    },
    /// Drops a waiter (the client gave up: timeout or Ctrl+C).
    WaitEnd {
        id: SessionId,
        waiter: u64,
    },
    Send {
        id: SessionId,
        inputs: Vec<Input>,
        /// The quiet gap after a paste or a lone Escape before the rest of the inputs, ms
        /// (default [`super::session::DEFAULT_INPUT_GAP`], at most
        /// [`super::session::MAX_INPUT_GAP`]; 0 for none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gap_ms: Option<u64>,
    },
    Resize {
        id: SessionId,
        width: u16,
        height: u16,
    },
    Stop {
        id: SessionId,
    },
    StopAll,
    /// The screen as it is now, for rendering by the client (`session capture`/`inspect`).
    Snapshot {
        id: SessionId,
    },
    /// Records a client-side step in the journal (a capture written, an inspection).
    Record {
        id: SessionId,
        entry: Box<super::journal::Entry>,
    },
    /// The session's journal, for `session export`.
    Journal {
        id: SessionId,
    },
    /// The session's output as an asciicast v2 document, for `session export x.cast`.
    Cast {
        id: SessionId,
    },
    /// Turns the connection into an event stream (see [`super::events`]): session summaries
    /// as they change, closed sessions and focus moves, after a roster of the present ones.
    Subscribe,
    /// Turns the connection into a stream of the session's screens as they change, until the
    /// session ends (see [`super::events::serve_attach`]).
    Attach {
        id: SessionId,
    },
    /// A request of an installed extension (see [`super::extension`]); its reply is the
    /// extension's.
    #[serde(skip)]
    Extension(ExtensionRequest),
}

impl Serialize for Request {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Request::Extension(r) => r.serialize(serializer),
            host => Request::serialize(host, serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Request {
    /// A host op as derived; an op the host does not know is an [`ExtensionRequest`] (whether
    /// an extension serves it is the router's question). A known op with bad fields keeps the
    /// derived error (`missing field …`).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Request, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let Some(op) = value.get("op").and_then(Value::as_str) else {
            return Request::deserialize(&value).map_err(D::Error::custom);
        };
        match Request::deserialize(&value) {
            Ok(request) => Ok(request),
            // serde's message for a tag no variant has: "unknown variant `<op>`, expected …".
            Err(e)
                if e.to_string()
                    .starts_with(&format!("unknown variant `{op}`")) =>
            {
                let op = op.to_string();
                let Value::Object(mut body) = value else {
                    unreachable!("a value with an op is an object")
                };
                // Order-preserving removal: the body keeps the order it was written in.
                body.shift_remove("op");
                Ok(Request::Extension(ExtensionRequest { op, body }))
            }
            Err(e) => Err(D::Error::custom(e)),
        }
    }
}

/// A request for an extension: `op` names the extension (see
/// [`super::extension::Extension::name`]), `body` holds the request's other fields in order.
/// On the wire `{"op": <op>, <body>…}`, like every request.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionRequest {
    /// The extension's op.
    pub op: String,
    /// The fields after `op`, as the extension wrote them.
    pub body: Map<String, Value>,
}

impl ExtensionRequest {
    /// The request for `op` carrying `payload`, which must serialise to a JSON object (its
    /// fields follow `op`, in order).
    ///
    /// Errors: a message when `payload` is not an object.
    pub fn new<T: Serialize>(op: &str, payload: &T) -> Result<ExtensionRequest, String> {
        match serde_json::to_value(payload).map_err(|e| e.to_string())? {
            Value::Object(body) => Ok(ExtensionRequest {
                op: op.to_string(),
                body,
            }),
            other => Err(format!(
                "an extension request must be an object, not {other}"
            )),
        }
    }

    /// The body read as the extension's request type.
    ///
    /// Errors: serde's message when the body does not fit `T`.
    pub fn parse<T: serde::de::DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        serde_json::from_value(Value::Object(self.body))
    }
}

impl Serialize for ExtensionRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.body.len() + 1))?;
        map.serialize_entry("op", &self.op)?;
        for (k, v) in &self.body {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_plain_strings_on_the_wire_and_fresh_ones_are_well_formed() {
        let a = SessionId::generate();
        assert!(a.is_well_formed() && a.len() == 34, "{a}");
        assert_ne!(a, SessionId::generate());
        assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{a}\""));
        // Any string is an id on the wire: one the host never made is just not found.
        let r: Request = serde_json::from_str(r#"{"op":"stop","id":"nope"}"#).unwrap();
        match r {
            Request::Stop { id } => assert!(!id.is_well_formed() && id.as_str() == "nope"),
            other => panic!("{other:?}"),
        }
        for bad in [
            "s_0123",
            "S_0123456789abcdef0123456789abcdef",
            "s_0123456789ABCDEF0123456789abcdef",
        ] {
            assert!(!SessionId::well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn ops_the_host_does_not_define_are_carried_for_extensions() {
        let line = r#"{"op":"notes","verb":"list","caller":{"project":"/p"}}"#;
        let Request::Extension(r) = serde_json::from_str::<Request>(line).unwrap() else {
            panic!("not an extension request")
        };
        assert_eq!(r.op, "notes");
        assert_eq!(r.body.keys().collect::<Vec<_>>(), ["verb", "caller"]);
        assert_eq!(
            serde_json::to_string(&Request::Extension(r)).unwrap(),
            line,
            "written back as it came"
        );
    }

    #[test]
    fn host_ops_keep_their_derived_shape_and_errors() {
        let line = r#"{"op":"read","id":"s_1","structured":false}"#;
        let read = Request::Read {
            id: "s_1".into(),
            structured: false,
        };
        assert_eq!(serde_json::to_string(&read).unwrap(), line);
        assert_eq!(serde_json::from_str::<Request>(line).unwrap(), read);
        assert_eq!(
            serde_json::from_str::<Request>(r#"{"op":"ping"}"#).unwrap(),
            Request::Ping
        );
        let e = serde_json::from_str::<Request>(r#"{"op":"read","id":"s_1"}"#).unwrap_err();
        assert!(e.to_string().contains("missing field `structured`"), "{e}");
        assert!(serde_json::from_str::<Request>(r#"{"id":"s_1"}"#).is_err());
    }
}
