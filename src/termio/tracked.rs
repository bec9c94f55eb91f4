//! What termio keeps per host session ([`Meta`], in the [`Table`] keyed by host session id)
//! and what it derives from a session and its meta ([`Tracked`]): the status
//! ([`termio_status`]), title, link, `list` entry ([`list_entry`]) and project
//! ([`project_of`]).
//!
//! Every host session is a termio session: one started by `termio sessions run` carries its
//! project and command; one started by `console2svg session start` belongs to the project of
//! its working directory (`termio::project::resolve_dir`, evaluated at each request, so
//! registering a project later adopts the sessions under it).

use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

use super::link;
use super::project::{self, Registry};
use super::reply::{SessionEntry, Status};
use super::status::agent::View;
use super::status::monitor::Slot;
use super::status::shell::Shell;
use crate::host::protocol::Launch;
use crate::host::session::{Session, Sessions, State};
use crate::pty::SpawnSpec;

/// The shells whose prompt a session's status follows when `console2svg` started them (a
/// lone shell, possibly with flags).
const SHELLS: &[&str] = &[
    "bash", "zsh", "sh", "dash", "ksh", "mksh", "fish", "tcsh", "csh",
];

/// What termio keeps per host session.
#[derive(Debug)]
pub struct Meta {
    argv: Vec<String>,
    cwd: PathBuf,
    run: Option<Run>,
    created: SystemTime,
    /// The shell status machine (plain terminals that are shells).
    pub(super) shell: parking_lot::Mutex<Shell>,
    /// `run`: the screen version just before the queued command was typed, and when its
    /// Return was written.
    pub(super) delivered: parking_lot::Mutex<Option<(u64, Instant)>>,
    /// Agent sessions (`spawn`, or a session a hook reported from): the status machine.
    pub agent: Slot,
    /// The agent status sequence up to which the event hub has published missed questions
    /// (see `service`'s tick).
    pub(super) asked_seq: AtomicU64,
}

/// A `termio sessions run` session.
#[derive(Debug)]
struct Run {
    command: String,
    project: PathBuf,
}

impl Meta {
    /// The metadata of a session spawned from `spec`; `run` is the `run` command and the
    /// project for termio `run` sessions.
    pub fn of(spec: &SpawnSpec, run: Option<(String, PathBuf)>) -> Meta {
        let argv = spec
            .argv
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        Meta::new(argv, spec.cwd.clone(), run)
    }

    /// The metadata of a session the host's `start` request started from `launch`.
    pub fn of_launch(launch: &Launch) -> Meta {
        Meta::new(launch.argv.clone(), PathBuf::from(&launch.cwd), None)
    }

    fn new(argv: Vec<String>, cwd: PathBuf, run: Option<(String, PathBuf)>) -> Meta {
        Meta {
            argv,
            cwd,
            run: run.map(|(command, project)| Run { command, project }),
            created: SystemTime::now(),
            shell: Default::default(),
            delivered: Default::default(),
            agent: Default::default(),
            asked_seq: AtomicU64::new(0),
        }
    }

    /// What the session runs: the `run` command, else the argv joined by spaces.
    pub fn command(&self) -> String {
        match &self.run {
            Some(r) => r.command.clone(),
            None => self.argv.join(" "),
        }
    }

    /// Whether the session is a shell whose prompt the status follows.
    pub fn is_shell(&self) -> bool {
        if self.run.is_some() {
            return true;
        }
        let Some(program) = self.argv.first() else {
            return false;
        };
        let name = Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .trim_start_matches('-');
        SHELLS.contains(&name) && self.argv[1..].iter().all(|a| a.starts_with('-'))
    }

    /// Whether the session was started by `termio sessions run` (or `spawn`).
    pub fn is_run(&self) -> bool {
        self.run.is_some()
    }

    /// The directory the session started in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// When the session was created.
    pub fn created_at(&self) -> SystemTime {
        self.created
    }

    /// `run`: the screen version just before the queued command was typed, once it was.
    pub fn delivered(&self) -> Option<u64> {
        self.delivered.lock().map(|d| d.0)
    }
}

/// A host session with termio's data about it. Derefs to the [`Session`].
#[derive(Clone)]
pub struct Tracked {
    /// The host session.
    pub session: Arc<Session>,
    /// termio's data about it.
    pub meta: Arc<Meta>,
}

impl Deref for Tracked {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

/// termio's data per host session, keyed by host session id. Entries come with the
/// sessions termio starts, with the host's notifications of sessions started by `start`, and
/// go with the host's notifications of sessions leaving the registry.
#[derive(Debug, Default)]
pub struct Table {
    metas: Mutex<HashMap<String, Arc<Meta>>>,
}

impl Table {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Meta>>> {
        self.metas.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `meta` for session `id`.
    pub fn insert(&self, id: &str, meta: Arc<Meta>) {
        self.lock().insert(id.to_string(), meta);
    }

    /// Forgets session `id`.
    pub fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// `session` with its meta. A session termio does not keep (never told about, or just
    /// forgotten while a monitor tick still summarises it) gets a fresh empty meta, not kept:
    /// a plain terminal in `/`'s project.
    pub fn get(&self, session: &Arc<Session>) -> Tracked {
        let kept = self.lock().get(session.id.as_str()).cloned();
        let meta = kept.unwrap_or_else(|| Arc::new(Meta::new(Vec::new(), "/".into(), None)));
        Tracked {
            session: session.clone(),
            meta,
        }
    }

    /// The meta of session `id`, if termio keeps one.
    pub fn meta(&self, id: &str) -> Option<Arc<Meta>> {
        self.lock().get(id).cloned()
    }

    /// Every session of the host's registry with its meta (unordered).
    pub fn all(&self, sessions: &Sessions) -> Vec<Tracked> {
        sessions.values().map(|s| self.get(s)).collect()
    }
}

/// The status of a session now (see [`Status`]). Cheap: one lock, one `tcgetpgrp` ioctl.
///
/// For a shell (a `run` session, or a lone shell `console2svg` started): the shell status
/// machine ([`Shell`]) over the PTY's foreground process group. Any other running program is
/// `working`; an agent session's status is its agent's. An ended program is `exited`.
///
/// Takes the session's lock briefly: never call it while holding [`Session::lock`] (e.g. from
/// the pump); it also updates the status machine's memory, so calling it often (a watcher
/// sampling every 100–250 ms) only makes `working` more accurate.
pub fn termio_status(s: &Tracked) -> Status {
    status_with(s, s.meta.agent.view().as_ref())
}

/// [`termio_status`] with the agent's view already taken (`None`: not an agent session).
fn status_with(s: &Tracked, view: Option<&View>) -> Status {
    if s.lock().state != State::Running {
        return Status::Exited;
    }
    if let Some(v) = view {
        return v.status;
    }
    if !s.meta.is_shell() {
        return Status::Working;
    }
    let busy = s
        .foreground_group()
        .is_some_and(|g| g > 0 && g as u32 != s.pid);
    s.meta.shell.lock().observe(busy, Instant::now())
}

/// The session's title: its program's OSC title when set, else its command.
pub fn title_of(s: &Tracked) -> String {
    let title = s
        .lock()
        .emulator
        .title()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    title.unwrap_or_else(|| s.meta.command())
}

/// The session's link, `termio://session/<uuid>`.
pub fn link_of(s: &Session) -> String {
    link::link_of(&link::uuid_of(&s.id))
}

/// One `list` entry (also what `watch` streams): link, id, title, agent (`terminal`, or the
/// agent's name), status, description (the command), the shell's current directory while it
/// runs, and for agents `reason`, `since`, `prompt` (`needs-you`), `transcript` and
/// `cursor_end` (see [`View`]). Same locking rule as [`termio_status`].
pub fn list_entry(s: &Tracked) -> SessionEntry {
    entry_with(s, s.meta.agent.view().as_ref())
}

/// [`list_entry`] with the agent's view already taken (`None`: not an agent session), for a
/// caller that needs more of the same view (the summary part: `settling`, `seq`).
pub fn entry_with(s: &Tracked, v: Option<&View>) -> SessionEntry {
    let uuid = link::uuid_of(&s.id);
    let status = status_with(s, v);
    let cwd = (status != Status::Exited && s.meta.is_shell())
        .then(|| std::fs::read_link(format!("/proc/{}/cwd", s.pid)).ok())
        .flatten()
        .map(|p| p.to_string_lossy().into_owned());
    SessionEntry {
        link: link::link_of(&uuid),
        id: link::short_id(&uuid).to_string(),
        title: title_of(s),
        agent: v.map_or_else(|| "terminal".into(), |v| v.agent.clone()),
        status,
        description: s.meta.command(),
        transcript: v
            .and_then(|v| v.transcript.as_ref())
            .map(|p| p.to_string_lossy().into_owned()),
        cwd,
        reason: v.map(|v| v.reason.clone()),
        since: v.map(|v| crate::host::server::timestamp(v.since)),
        prompt: v.and_then(|v| v.prompt.clone()),
        cursor_end: v.and_then(|v| v.cursor_end),
    }
}

/// The project a session belongs to: its `run` project, else the project of its working
/// directory under `registry`.
pub fn project_of(s: &Tracked, registry: &Registry) -> PathBuf {
    match &s.meta.run {
        Some(r) => r.project.clone(),
        None => project::resolve_dir(&s.meta.cwd, registry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(argv: &[&str]) -> Meta {
        let spec = SpawnSpec {
            argv: argv.iter().map(Into::into).collect(),
            cwd: "/".into(),
            cols: 80,
            rows: 24,
            color_env: true,
            delete_ci_env: true,
            env: Vec::new(),
            base_env: None,
        };
        Meta::of(&spec, None)
    }

    #[test]
    fn lone_shells_are_followed_other_programs_are_not() {
        assert!(meta(&["bash"]).is_shell());
        assert!(meta(&["/usr/bin/zsh", "-i"]).is_shell());
        assert!(meta(&["bash", "--norc", "-i"]).is_shell());
        assert!(!meta(&["bash", "-c", "sleep 1"]).is_shell());
        assert!(!meta(&["sh", "script.sh"]).is_shell());
        assert!(!meta(&["vim"]).is_shell());
        assert_eq!(meta(&["bash", "--norc"]).command(), "bash --norc");
    }
}
