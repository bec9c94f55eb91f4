//! What the hook and skill installers share: the directories they write into (resolved once from
//! the environment, so tests can point them anywhere) and one error type with stable codes.

use std::path::{Path, PathBuf};

use super::{Code, Error};

/// The directories the installers use, resolved from the environment.
///
/// Source: notes/agents.md. Claude Code: `CLAUDE_CONFIG_DIR` relocates `~/.claude`. Codex:
/// `CODEX_HOME` relocates `~/.codex`. Cursor (`~/.cursor`), Gemini CLI (`~/.gemini`) and the open
/// skills folder (`~/.agents`) always live under `HOME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex: PathBuf,
}

impl Dirs {
    /// The directories for `home`, with the agents' relocation variables unset.
    pub fn under_home(home: &Path) -> Dirs {
        Dirs {
            home: home.to_path_buf(),
            claude: home.join(".claude"),
            codex: home.join(".codex"),
        }
    }

    /// Reads `HOME`, `CLAUDE_CONFIG_DIR` and `CODEX_HOME` (an empty variable counts as unset).
    ///
    /// Errors: [`SetupError::Io`] when `HOME` is unset or empty.
    pub fn from_env() -> Result<Dirs, SetupError> {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("HOME").ok_or_else(|| {
            SetupError::Io("HOME is not set: cannot find the agents' config folders".into())
        })?;
        let mut dirs = Dirs::under_home(&home);
        if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
            dirs.claude = dir;
        }
        if let Some(dir) = var("CODEX_HOME") {
            dirs.codex = dir;
        }
        Ok(dirs)
    }
}

/// A failed install, uninstall or status step. Each variant maps to one of termio's stable codes
/// ([`SetupError::code`], a [`Code`]); it converts into the contract's one error shape,
/// [`Error`], for `--json`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// An agent name that is not one of `claude`, `codex`, `cursor`, `gemini` (code `bad_agent`).
    #[error("unknown agent '{0}' (known: claude, codex, cursor, gemini)")]
    BadAgent(String),
    /// A config file that does not parse, or whose shape is not the agent's (code `bad_config`).
    /// The file is left byte-identical.
    #[error("{}: {reason}; the file was left untouched", path.display())]
    BadConfig {
        /// The file.
        path: PathBuf,
        /// Why it was refused (one line).
        reason: String,
    },
    /// Reading or writing a file failed, or `HOME` is unset (code `io_error`).
    #[error("{0}")]
    Io(String),
}

impl SetupError {
    /// The stable error code: [`Code::BadAgent`], [`Code::BadConfig`] or [`Code::IoError`].
    pub fn code(&self) -> Code {
        match self {
            SetupError::BadAgent(_) => Code::BadAgent,
            SetupError::BadConfig { .. } => Code::BadConfig,
            SetupError::Io(_) => Code::IoError,
        }
    }
}

impl From<&SetupError> for Error {
    fn from(e: &SetupError) -> Error {
        Error::new(e.code(), e.to_string())
    }
}

/// Reads a file that may not exist: `Ok(None)` when it does not.
///
/// Errors: [`SetupError::Io`] naming the file for any other failure.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, SetupError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| SetupError::BadConfig {
                path: path.to_path_buf(),
                reason: "not UTF-8 text".into(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SetupError::Io(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

/// Creates `dir` and its parents.
///
/// Errors: [`SetupError::Io`] naming the folder.
pub(crate) fn create_dir(dir: &Path) -> Result<(), SetupError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| SetupError::Io(format!("cannot create {}: {e}", dir.display())))
}
