//! The contract's one error shape (shared/spec/termio-sessions.md, "JSON contract"):
//! `{"ok": false, "error": "<code>", "message": "<text>", "schema_version": 1}`.

use serde::{Deserialize, Serialize};

/// The stable error codes termio produces (the contract's list), plus the installers'
/// `bad_config` and `io_error` (`termio hooks …`, `termio skill …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// Session control is turned off in the termio config file (`session_control: false`).
    Disabled,
    /// The caller's project cannot be resolved (`TERMIO_SESSION` names no session of this
    /// host, or the working directory is gone).
    NoScope,
    /// An unknown verb.
    BadOp,
    /// Invalid arguments (a bad key name, a malformed option value or environment variable).
    BadRequest,
    /// Nothing to type: an empty command or text.
    NoText,
    /// A verb that needs a session link was given none.
    NoTarget,
    /// No session of the caller's project matches the link, id, prefix or title.
    NotFound,
    /// Several sessions of the caller's project match the id prefix or title.
    Ambiguous,
    /// The session's program could not be started.
    StartFailed,
    /// The session (or the host) is not live: its program has exited, or the host cannot be
    /// reached or did not answer in time.
    NotLive,
    /// `--wait` only: the input had no visible effect within 5 s.
    PromptStalled,
    /// `--wait` only: the session ended during the wait.
    SessionClosed,
    /// `--agent` names no known agent, or the agents file is invalid (also `termio hooks
    /// --agent vim`).
    BadAgent,
    /// No agent given, the caller is no agent session, and the agents file names no default.
    NoAgent,
    /// The verb needs an agent session (e.g. `answer`) and the target is a plain terminal.
    WrongAgent,
    /// `--wait` only: the agent exited back to its shell during the wait.
    AgentGone,
    /// Installers only: an agent's config file that does not parse or has the wrong shape; it is
    /// left byte-identical.
    BadConfig,
    /// Installers only: reading or writing a file failed, or `HOME` is unset.
    IoError,
}

impl Code {
    /// The code as written in JSON (`not_found`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Disabled => "disabled",
            Code::NoScope => "no_scope",
            Code::BadOp => "bad_op",
            Code::BadRequest => "bad_request",
            Code::NoText => "no_text",
            Code::NoTarget => "no_target",
            Code::NotFound => "not_found",
            Code::Ambiguous => "ambiguous",
            Code::StartFailed => "start_failed",
            Code::NotLive => "not_live",
            Code::PromptStalled => "prompt_stalled",
            Code::SessionClosed => "session_closed",
            Code::BadAgent => "bad_agent",
            Code::BadConfig => "bad_config",
            Code::IoError => "io_error",
            Code::NoAgent => "no_agent",
            Code::WrongAgent => "wrong_agent",
            Code::AgentGone => "agent_gone",
        }
    }
}

/// A failed termio command: its code and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    /// Always false.
    pub ok: bool,
    /// The code (`error` in JSON).
    #[serde(rename = "error")]
    pub code: Code,
    /// What went wrong, for people.
    pub message: String,
    /// Always 1.
    pub schema_version: u32,
}

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            ok: false,
            code,
            message: message.into(),
            schema_version: super::reply::SCHEMA_VERSION,
        }
    }

    /// The contract's error document.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an error serialises")
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}
