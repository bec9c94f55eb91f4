//! Codex's `notify` entry in `config.toml` (`$CODEX_HOME`, else `~/.codex`), edited with
//! `toml_edit` so comments, layout and every other key survive.
//!
//! Source: notes/agents.md, Codex CLI: `notify = ["prog", "arg"]`, and Codex appends one argument,
//! a JSON string `{"type": "agent-turn-complete", …}`. We install it besides the `Stop` hook of
//! `hooks.json` because newer Codex versions run new hooks only after the user trusts them once
//! (and older ones have no hooks), while `notify` always runs; the reporter gets the same payload
//! on stdin as from a hook, and a second `done` for one turn changes nothing.
//!
//! `notify` holds one program, so it is never merged: we set it only when it is absent (or ours,
//! from another version or reporting program), never replace a user's, and remove it only when it
//! is ours. Ours is recognised by [`super::hooks::FINGERPRINT_PREFIX`] in its shell script.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item};

use super::hooks::{FINGERPRINT, FINGERPRINT_PREFIX};
use super::setup::{read_optional, SetupError};

/// The `notify` entry's state in `config.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotifyState {
    /// Ours, exactly as we would write it.
    Installed,
    /// Ours, from another version or reporting program: `install` rewrites it.
    Outdated,
    /// No `notify` key (or no file).
    NotInstalled,
    /// The user's own `notify`: left alone.
    Foreign,
}

/// What an action did to `config.toml`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NotifyReport {
    /// The `config.toml` path.
    pub path: PathBuf,
    /// The state after the action.
    pub state: NotifyState,
    /// Whether the file was (or, from [`plan`], will be) written.
    pub changed: bool,
}

/// The argv we set: `sh -c <script> termio-notify`, so the JSON Codex appends becomes `$1` and
/// is piped to the reporter's stdin.
pub fn notify_argv(program: &str) -> [String; 4] {
    [
        "sh".into(),
        "-c".into(),
        format!(
            "printf '%s' \"$1\" | {program} agent report done --agent codex --event agent-turn-complete >/dev/null 2>&1 || true {FINGERPRINT}"
        ),
        "termio-notify".into(),
    ]
}

fn state_of(doc: &DocumentMut, program: &str) -> NotifyState {
    let Some(item) = doc.get("notify") else {
        return NotifyState::NotInstalled;
    };
    let words: Option<Vec<&str>> = item
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap_or_default()).collect());
    match words {
        Some(w) if w == notify_argv(program) => NotifyState::Installed,
        Some(w) if w.iter().any(|s| s.contains(FINGERPRINT_PREFIX)) => NotifyState::Outdated,
        _ => NotifyState::Foreign,
    }
}

/// Works out what `install` (or uninstall, or status when `action` is `None`) does to
/// `config.toml` in `codex_dir`, without writing: the report, and the new text when it changes.
///
/// Errors: [`SetupError::BadConfig`] when the file is not valid TOML; [`SetupError::Io`] when it
/// cannot be read.
pub fn plan(
    codex_dir: &Path,
    program: &str,
    install: Option<bool>,
) -> Result<(NotifyReport, Option<String>), SetupError> {
    let path = codex_dir.join("config.toml");
    let text = read_optional(&path)?.unwrap_or_default();
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| SetupError::BadConfig {
                path: path.clone(),
                reason: format!("not valid TOML: {}", e.message()),
            })?;
    let before = state_of(&doc, program);
    let change = match (install, before) {
        (Some(true), NotifyState::NotInstalled | NotifyState::Outdated) => {
            doc["notify"] = Item::Value(Array::from_iter(notify_argv(program)).into());
            true
        }
        (Some(false), NotifyState::Installed | NotifyState::Outdated) => {
            doc.remove("notify");
            true
        }
        _ => false,
    };
    let report = NotifyReport {
        path,
        state: state_of(&doc, program),
        changed: change,
    };
    Ok((report, change.then(|| doc.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notify_is_set_beside_comments_and_removed_byte_identically() {
        let dir = tempfile::tempdir().unwrap();
        let original = "# my Codex config\nmodel = \"gpt-5\" # the default\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        std::fs::write(dir.path().join("config.toml"), original).unwrap();
        let (report, text) = plan(dir.path(), "termio", Some(true)).unwrap();
        assert_eq!(report.state, NotifyState::Installed);
        let text = text.unwrap();
        assert!(
            text.starts_with(
                "# my Codex config\nmodel = \"gpt-5\" # the default\nnotify = [\"sh\", \"-c\", "
            ),
            "{text}"
        );
        assert!(
            text.ends_with("\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"),
            "{text}"
        );
        std::fs::write(dir.path().join("config.toml"), &text).unwrap();
        assert_eq!(plan(dir.path(), "termio", Some(true)).unwrap().1, None);
        let (report, back) = plan(dir.path(), "termio", Some(false)).unwrap();
        assert_eq!(report.state, NotifyState::NotInstalled);
        assert_eq!(back.unwrap(), original);
    }

    #[test]
    fn a_users_notify_is_never_replaced_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "notify = [\"notify-send\", \"Codex\"]\n",
        )
        .unwrap();
        for install in [Some(true), Some(false), None] {
            let (report, text) = plan(dir.path(), "termio", install).unwrap();
            assert_eq!((report.state, text), (NotifyState::Foreign, None));
        }
    }
}
