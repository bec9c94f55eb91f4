//! Projects (shared/spec/termio-sessions.md, "Project-scoped by default"): the registry of
//! folders opened with `termio [path]`, and how a directory maps to its project.
//!
//! The registry is `$XDG_STATE_HOME/termio/projects.json`, else
//! `$HOME/.local/state/termio/projects.json`: `{"schema_version":1,"projects":[{"path":"/abs"}]}`,
//! rewritten atomically (temporary file + rename).
//!
//! A directory's project ([`resolve_dir`]) is the deepest registered project containing it,
//! else the top level of the git work tree containing it (the nearest ancestor with a `.git`
//! entry, file or directory), else the directory itself. The same rule maps a caller's working
//! directory and a `console2svg session start` session's working directory to a project.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The registry file, or `None` when neither `XDG_STATE_HOME` nor `HOME` is set.
pub fn registry_file() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|h| h.join(".local/state")))
        .map(|d| d.join("termio").join("projects.json"))
}

/// One registered project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    /// Absolute, canonical path.
    pub path: PathBuf,
}

/// The registered projects.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    /// Always 1.
    #[serde(default = "one")]
    pub schema_version: u32,
    /// In registration order.
    #[serde(default)]
    pub projects: Vec<Project>,
}

fn one() -> u32 {
    1
}

impl Registry {
    /// Reads the registry; a missing file is an empty registry.
    ///
    /// Errors: a message naming the file when it cannot be read or parsed.
    pub fn load() -> Result<Registry, String> {
        let Some(file) = registry_file() else {
            return Ok(Registry::default());
        };
        match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{} is not a termio project registry: {e}", file.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Registry::default()),
            Err(e) => Err(format!("cannot read {}: {e}", file.display())),
        }
    }

    /// Registers `dir` (made canonical) and saves the registry atomically. Returns the
    /// project's path and whether it was newly added.
    ///
    /// Errors: a message when `dir` is not a directory or the registry cannot be written.
    pub fn register(dir: &Path) -> Result<(PathBuf, bool), String> {
        let path = dir
            .canonicalize()
            .map_err(|e| format!("cannot open {} as a project: {e}", dir.display()))?;
        if !path.is_dir() {
            return Err(format!("{} is not a directory", path.display()));
        }
        let mut registry = Registry::load()?;
        if registry.projects.iter().any(|p| p.path == path) {
            return Ok((path, false));
        }
        registry.projects.push(Project { path: path.clone() });
        registry.schema_version = 1;
        let file = registry_file().ok_or("neither XDG_STATE_HOME nor HOME is set")?;
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let mut text = serde_json::to_string_pretty(&registry).map_err(|e| e.to_string())?;
        text.push('\n');
        crate::output::write_atomic(&file, text.as_bytes())?;
        Ok((path, true))
    }
}

/// The project of `dir`: the deepest registered project containing it, else its git work
/// tree's top level, else `dir` itself (canonical when it exists).
pub fn resolve_dir(dir: &Path, registry: &Registry) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    registry
        .projects
        .iter()
        .filter(|p| dir.starts_with(&p.path))
        .max_by_key(|p| p.path.components().count())
        .map(|p| p.path.clone())
        .or_else(|| git_top(&dir))
        .unwrap_or(dir)
}

/// The nearest ancestor of `dir` (itself included) holding a `.git` entry.
fn git_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").symlink_metadata().is_ok())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deepest_registered_project_wins_then_git_then_the_directory() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let repo = root.join("repo");
        let deep = repo.join("pkg/sub");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let plain = root.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        let none = Registry::default();
        assert_eq!(resolve_dir(&deep, &none), repo);
        assert_eq!(resolve_dir(&plain, &none), plain);
        let reg = Registry {
            schema_version: 1,
            projects: vec![
                Project { path: repo.clone() },
                Project {
                    path: repo.join("pkg"),
                },
            ],
        };
        assert_eq!(resolve_dir(&deep, &reg), repo.join("pkg"));
        assert_eq!(resolve_dir(&repo, &reg), repo);
    }
}
