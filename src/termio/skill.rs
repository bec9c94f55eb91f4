//! The `termio` agent skill: a folder `termio/SKILL.md` that teaches an agent the
//! `termio sessions` verbs (spec/termio-sessions.md), installed into each agent's skills folder.
//!
//! Source: notes/agents.md, "Agent skills": a skill is `<name>/SKILL.md` with YAML front matter
//! `name` (equal to the folder name) and `description` (≤ 1024 characters), then Markdown; the
//! folders are `~/.claude/skills/` (Claude Code, moved by `CLAUDE_CONFIG_DIR`), `~/.codex/skills/`
//! (older Codex, moved by `CODEX_HOME`) and `~/.agents/skills/` (newer Codex and the open standard).
//!
//! Our SKILL.md carries the fingerprint [`SKILL_FINGERPRINT`]. A `termio` folder whose SKILL.md
//! lacks it is someone else's (for example the published skill added by hand): we never write or
//! remove it. We only ever write `SKILL.md`; uninstall removes it, then the folder if that left it
//! empty.

use std::path::{Path, PathBuf};

use super::setup::{create_dir, read_optional, Dirs, SetupError};

/// The skill's text: front matter, the fingerprint comment, then the Markdown body.
pub const SKILL_MD: &str = include_str!("skill.md");

/// The skill's name (its folder name and front-matter `name`).
pub const SKILL_NAME: &str = "termio";

/// What marks a SKILL.md as ours (any version), in an HTML comment under the front matter.
pub const SKILL_FINGERPRINT: &str = "<!-- termio-skill v";

/// A skills folder the skill is installed into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SkillHome {
    /// `$CLAUDE_CONFIG_DIR/skills` (else `~/.claude/skills`).
    Claude,
    /// `$CODEX_HOME/skills` (else `~/.codex/skills`).
    Codex,
    /// `~/.agents/skills`.
    Agents,
}

impl SkillHome {
    /// Every skills folder, in the order reports list them.
    pub const ALL: [SkillHome; 3] = [SkillHome::Claude, SkillHome::Codex, SkillHome::Agents];

    /// The skill's SKILL.md under this home.
    pub fn skill_file(self, dirs: &Dirs) -> PathBuf {
        let skills = match self {
            SkillHome::Claude => dirs.claude.join("skills"),
            SkillHome::Codex => dirs.codex.join("skills"),
            SkillHome::Agents => dirs.home.join(".agents").join("skills"),
        };
        skills.join(SKILL_NAME).join("SKILL.md")
    }
}

/// The skill's state in one skills folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkillState {
    /// Our SKILL.md, with exactly the current text.
    Installed,
    /// Our SKILL.md, but edited or from another version: `install` (or [`reassert_skill`])
    /// rewrites it.
    Outdated,
    /// No SKILL.md.
    NotInstalled,
    /// A SKILL.md without our fingerprint: left alone.
    Foreign,
}

/// What an action did in one skills folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkillReport {
    /// The skills folder.
    pub home: SkillHome,
    /// The SKILL.md path.
    pub path: PathBuf,
    /// The state after the action.
    pub state: SkillState,
    /// Whether a file was written or removed.
    pub changed: bool,
}

fn state_of(text: Option<&str>) -> SkillState {
    match text {
        None => SkillState::NotInstalled,
        Some(t) if t == SKILL_MD => SkillState::Installed,
        Some(t) if t.contains(SKILL_FINGERPRINT) => SkillState::Outdated,
        Some(_) => SkillState::Foreign,
    }
}

/// What to do with one skills folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillOp {
    /// Read its state only.
    Status,
    /// Write our SKILL.md where it is missing or differs (never over a foreign one).
    Install,
    /// Remove our SKILL.md (and the folder when that leaves it empty).
    Uninstall,
    /// Rewrite our SKILL.md where it differs; install nothing new.
    Reassert,
}

/// Applies `op` to one skills folder.
///
/// Errors: [`SetupError::Io`] when the SKILL.md cannot be read, written or removed;
/// [`SetupError::BadConfig`] when it is not UTF-8.
pub fn apply_skill(op: SkillOp, home: SkillHome, dirs: &Dirs) -> Result<SkillReport, SetupError> {
    let path = home.skill_file(dirs);
    let before = state_of(read_optional(&path)?.as_deref());
    let (state, changed) = match (op, before) {
        (SkillOp::Install, SkillState::Outdated | SkillState::NotInstalled)
        | (SkillOp::Reassert, SkillState::Outdated) => write(&path)?,
        (SkillOp::Uninstall, SkillState::Installed | SkillState::Outdated) => {
            std::fs::remove_file(&path)
                .map_err(|e| SetupError::Io(format!("cannot remove {}: {e}", path.display())))?;
            if let Some(dir) = path.parent() {
                // Fails, as it should, when the folder holds other files.
                let _ = std::fs::remove_dir(dir);
            }
            (SkillState::NotInstalled, true)
        }
        (_, state) => (state, false),
    };
    Ok(SkillReport {
        home,
        path,
        state,
        changed,
    })
}

/// [`apply_skill`] on every skills folder, stopping at the first error.
fn for_each(dirs: &Dirs, op: SkillOp) -> Result<Vec<SkillReport>, SetupError> {
    SkillHome::ALL
        .iter()
        .map(|&home| apply_skill(op, home, dirs))
        .collect()
}

fn write(path: &Path) -> Result<(SkillState, bool), SetupError> {
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    crate::output::write_atomic(path, SKILL_MD.as_bytes()).map_err(|e| SetupError::Io(e.into()))?;
    Ok((SkillState::Installed, true))
}

/// The skill's state in every skills folder; writes nothing.
///
/// Errors: [`SetupError::Io`] when a SKILL.md cannot be read; [`SetupError::BadConfig`] when one
/// is not UTF-8.
pub fn skill_status(dirs: &Dirs) -> Result<Vec<SkillReport>, SetupError> {
    for_each(dirs, SkillOp::Status)
}

/// Installs the skill into every skills folder (creating the folders), rewriting our SKILL.md
/// where it differs and leaving a foreign one alone. Writing nothing when all are current.
///
/// Errors: as [`skill_status`], and [`SetupError::Io`] when a write fails.
pub fn install_skill(dirs: &Dirs) -> Result<Vec<SkillReport>, SetupError> {
    for_each(dirs, SkillOp::Install)
}

/// Removes our SKILL.md from every skills folder, and its `termio` folder when that leaves it
/// empty. A foreign SKILL.md and any other file in the folder stay.
///
/// Errors: as [`skill_status`], and [`SetupError::Io`] when a removal fails.
pub fn uninstall_skill(dirs: &Dirs) -> Result<Vec<SkillReport>, SetupError> {
    for_each(dirs, SkillOp::Uninstall)
}

/// Heals the skill where it is installed: every SKILL.md of ours whose text differs from
/// [`SKILL_MD`] (a hand edit, an older version) is rewritten. It installs nothing new (so an
/// `uninstall` is not undone behind the user's back) and never touches a foreign skill.
///
/// Errors: as [`install_skill`].
pub fn reassert_skill_in(dirs: &Dirs) -> Result<Vec<SkillReport>, SetupError> {
    for_each(dirs, SkillOp::Reassert)
}

/// [`reassert_skill_in`] for the directories of the environment ([`Dirs::from_env`]). Returns
/// whether any file was rewritten.
///
/// Errors: as [`reassert_skill_in`], and [`SetupError::Io`] when `HOME` is unset.
pub fn reassert_skill() -> Result<bool, SetupError> {
    let dirs = Dirs::from_env()?;
    Ok(reassert_skill_in(&dirs)?.iter().any(|r| r.changed))
}

/// What the session host does when it starts (spec: the skill is "re-asserted on every launch, so
/// hand-edits heal"): [`reassert_skill`] while session control is on
/// ([`super::config::Config::session_control`]), nothing when it is off. Never fails: an
/// unreadable config or a failed write is logged on stderr (the host's log) and the host goes on.
pub fn reassert_at_host_start() {
    match super::config::Config::load() {
        Ok(config) if !config.session_control() => {}
        Ok(_) => {
            if let Err(e) = reassert_skill() {
                eprintln!("termio: warning: cannot re-assert the agent skill: {e}");
            }
        }
        Err(e) => eprintln!("termio: warning: agent skill not re-asserted: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_follows_the_skill_format() {
        let rest = SKILL_MD.strip_prefix("---\n").expect("front matter first");
        let (yaml, body) = rest.split_once("\n---\n").expect("front matter closed");
        let meta: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(yaml).unwrap();
        assert_eq!(meta.len(), 2, "{meta:?}");
        assert_eq!(meta["name"].as_str(), Some(SKILL_NAME));
        let description = meta["description"].as_str().unwrap();
        assert!(description.len() <= 1024 && !description.contains('\n'));
        assert!(description.contains("Use it when"), "says when to use it");
        assert!(body.contains(SKILL_FINGERPRINT));
        for verb in [
            "list", "watch", "spawn", "run", "send", "read", "close", "focus",
        ] {
            assert!(body.contains(&format!("termio sessions {verb}")), "{verb}");
        }
        for topic in [
            "--wait",
            "Transcript as truth",
            "Signal, never kill",
            "schema_version",
        ] {
            assert!(body.contains(topic), "{topic}");
        }
    }
}
