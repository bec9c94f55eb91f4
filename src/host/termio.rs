//! termio on the host (shared/spec/termio-sessions.md): what the host keeps per session for
//! termio ([`Meta`]), a plain terminal's status ([`termio_status`]), the `list` entry
//! ([`list_entry`]), the project a session belongs to ([`project_of`]), and the handling of the
//! termio requests ([`handle`], one match arm in `server.rs`).
//!
//! Every host session is a termio session: one started by `termio sessions run` carries its
//! project and command; one started by `console2svg session start` belongs to the project of
//! its working directory (`termio::project::resolve_dir`, evaluated at each request, so
//! registering a project later adopts the sessions under it).
//!
//! `run` starts an interactive shell (`<shell> -i`) in the project directory with
//! `TERMIO_SESSION=<uuid>` and `TERMIO_PROJECT=<project>` in its environment, and a typist
//! thread types the command once the shell is ready (case SC-01): it has printed its prompt
//! and gone quiet, see [`READY_QUIET`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::agent_status::View;
use super::events::Hub;
use super::protocol::{ErrorCode, HostError};
use super::session::{Session, Shared, State};
use crate::pty::SpawnSpec;
use crate::term::keys::{self, Input, Step};
use crate::termio::error::{Code, Error};
use crate::termio::link::{self, Candidate};
use crate::termio::project::{self, Registry};
use crate::termio::reply::{self, SessionEntry, Status, Success};

/// A shell counts as ready once it has printed something and then been quiet this long with
/// the cursor after text on its row (a prompt) and the terminal in its own hands.
pub const READY_QUIET: Duration = Duration::from_millis(300);

/// Without anything prompt-like under the cursor, quiet this long counts as ready.
pub const READY_QUIET_FALLBACK: Duration = Duration::from_secs(2);

/// The command is typed after this long whatever the shell shows (a shell that never prints
/// a prompt); the spec prefers a late command to none.
pub const READY_MAX: Duration = Duration::from_secs(15);

/// How often the typist looks at a booting shell.
const READY_POLL: Duration = Duration::from_millis(50);

/// The gap between typed text and its Return (the Return is its own write, case SC-02).
pub const SUBMIT_GAP: Duration = Duration::from_millis(150);

/// After a command line is submitted at the prompt, the status is `working` for up to this
/// long before the command has been seen holding the terminal (the shell is still forking).
pub const SUBMIT_GRACE: Duration = Duration::from_millis(500);

/// After a command was last seen holding the terminal, the status stays `working` this long,
/// so a loop of short commands (each its own process group) does not flicker to `done`.
pub const BUSY_HOLD: Duration = Duration::from_millis(250);

/// The shells whose prompt a session's status follows when `console2svg` started them (a
/// lone shell, possibly with flags).
const SHELLS: &[&str] = &[
    "bash", "zsh", "sh", "dash", "ksh", "mksh", "fish", "tcsh", "csh",
];

/// What the host keeps per session for termio.
#[derive(Debug)]
pub struct Meta {
    argv: Vec<String>,
    cwd: PathBuf,
    run: Option<Run>,
    created: SystemTime,
    track: parking_lot::Mutex<Track>,
    /// Agent sessions (`spawn`, or a session a hook reported from): the status machine.
    pub agent: super::agent_status::Slot,
}

/// A `termio sessions run` session.
#[derive(Debug)]
struct Run {
    command: String,
    project: PathBuf,
}

/// The status machine's memory.
#[derive(Debug, Default)]
struct Track {
    /// A command has run at the shell prompt.
    ran: bool,
    /// When termio last submitted a command line at the prompt.
    submitted: Option<Instant>,
    /// When a command was last seen holding the terminal.
    busy_seen: Option<Instant>,
    /// `run`: the screen version just before the queued command was typed, and when its
    /// Return was written.
    delivered: Option<(u64, Instant)>,
}

impl Meta {
    /// The metadata of a session spawned from `spec`; `run` is the `run` command and the
    /// project for termio `run` sessions.
    pub fn of(spec: &SpawnSpec, run: Option<(String, PathBuf)>) -> Meta {
        Meta {
            argv: spec
                .argv
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            cwd: spec.cwd.clone(),
            run: run.map(|(command, project)| Run { command, project }),
            created: SystemTime::now(),
            track: parking_lot::Mutex::new(Track::default()),
            agent: Default::default(),
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
        self.track.lock().delivered.map(|d| d.0)
    }
}

/// The status of a session now (see [`Status`]). Cheap: one lock, one `tcgetpgrp` ioctl.
///
/// For a shell (a `run` session, or a lone shell `console2svg` started): `working` while the
/// PTY's foreground process group is not the shell's (and for [`SUBMIT_GRACE`] after termio
/// submitted a command line, [`BUSY_HOLD`] after a command was last seen), else `done` once a
/// command has run, else `idle`. Any other running program is `working`. An ended program is
/// `exited`.
///
/// Takes the session's lock briefly: never call it while holding [`Session::lock`] (e.g. from
/// the pump); it also updates the status machine's memory, so calling it often (a watcher
/// sampling every 100–250 ms) only makes `working` more accurate.
pub fn termio_status(s: &Session) -> Status {
    status_with(s, s.termio.agent.view().as_ref())
}

/// [`termio_status`] with the agent's view already taken (`None`: not an agent session).
fn status_with(s: &Session, view: Option<&View>) -> Status {
    if s.lock().state != State::Running {
        return Status::Exited;
    }
    if let Some(v) = view {
        return v.status;
    }
    if !s.termio.is_shell() {
        return Status::Working;
    }
    let busy = s
        .foreground_group()
        .is_some_and(|g| g > 0 && g as u32 != s.pid);
    let now = Instant::now();
    let mut t = s.termio.track.lock();
    if busy {
        t.ran = true;
        t.busy_seen = Some(now);
        t.submitted = None;
        return Status::Working;
    }
    let recent = |at: Option<Instant>, d: Duration| at.is_some_and(|at| now - at < d);
    if recent(t.submitted, SUBMIT_GRACE) || recent(t.busy_seen, BUSY_HOLD) {
        Status::Working
    } else if t.ran {
        Status::Done
    } else {
        Status::Idle
    }
}

/// The session's title: its program's OSC title when set, else its command.
pub fn title_of(s: &Session) -> String {
    let title = s
        .lock()
        .emulator
        .title()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    title.unwrap_or_else(|| s.termio.command())
}

/// The session's link, `termio://session/<uuid>`.
pub fn link_of(s: &Session) -> String {
    link::link_of(&link::uuid_of(&s.id))
}

/// One `list` entry (also what `watch` streams): link, id, title, agent (`terminal`, or the
/// agent's name), status, description (the command), the shell's current directory while it
/// runs, and for agents `reason`, `since`, `prompt` (`needs-you`), `transcript` and
/// `cursor_end` (see `host::agent_status::View`). Same locking rule as [`termio_status`].
///
/// A watcher scoped like `list`: `let registry = Registry::load().unwrap_or_default();`,
/// `let project = project_for(&sessions, &caller, &registry)?;`, then
/// `in_project(&sessions, &project, &registry)` and `list_entry` on each.
pub fn list_entry(s: &Session) -> SessionEntry {
    entry_with(s, s.termio.agent.view().as_ref())
}

/// [`list_entry`] with the agent's view already taken (`None`: not an agent session), for a
/// caller that needs more of the same view (the event hub: `settling`, `seq`).
pub fn entry_with(s: &Session, v: Option<&View>) -> SessionEntry {
    let uuid = link::uuid_of(&s.id);
    let status = status_with(s, v);
    let cwd = (status != Status::Exited && s.termio.is_shell())
        .then(|| std::fs::read_link(format!("/proc/{}/cwd", s.pid)).ok())
        .flatten()
        .map(|p| p.to_string_lossy().into_owned());
    SessionEntry {
        link: link::link_of(&uuid),
        id: link::short_id(&uuid).to_string(),
        title: title_of(s),
        agent: v.map_or_else(|| "terminal".into(), |v| v.agent.clone()),
        status,
        description: s.termio.command(),
        transcript: v
            .and_then(|v| v.transcript.as_ref())
            .map(|p| p.to_string_lossy().into_owned()),
        cwd,
        reason: v.map(|v| v.reason.clone()),
        since: v.map(|v| super::server::timestamp(v.since)),
        prompt: v.and_then(|v| v.prompt.clone()),
        cursor_end: v.and_then(|v| v.cursor_end),
    }
}

/// The project a session belongs to: its `run` project, else the project of its working
/// directory under `registry`.
pub fn project_of(s: &Session, registry: &Registry) -> PathBuf {
    match &s.termio.run {
        Some(r) => r.project.clone(),
        None => project::resolve_dir(&s.termio.cwd, registry),
    }
}

/// Who is asking: the caller's session (`TERMIO_SESSION`) or its project directory (resolved
/// by the client from its working directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Caller {
    /// The uuid from `TERMIO_SESSION`.
    Session(String),
    /// An absolute project directory.
    Project(String),
}

/// The termio requests (the `termio` op of the host protocol). Replies are the contract's
/// documents (`termio::reply`) or its error shape (`termio::error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verb", rename_all = "snake_case")]
pub enum TermioRequest {
    /// The caller's project and its sessions (oldest first).
    List {
        /// Who asks.
        /// Who asks.
        caller: Caller,
    },
    /// Starts `<shell> -i` in the caller's project and queues `command`.
    Run {
        /// Who asks.
        caller: Caller,
        /// The shell command to type.
        command: String,
        /// The shell program (the client's `$SHELL`, else `bash`).
        shell: String,
        /// The caller's environment ([`SpawnSpec::base_env`]); absent from older clients.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env: Option<Vec<(String, String)>>,
        /// Columns, 1–500.
        width: u16,
        /// Rows, 1–500.
        height: u16,
    },
    /// The viewport text; `lines` keeps its last N rows.
    Read {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// Keep the last N rows.
        lines: Option<usize>,
    },
    /// Types `text` (pasted when it has line breaks), then `keys`, then Return when `enter`.
    /// The reply adds `since` (the version before the input) and `command` (whether it
    /// submitted a command line at a shell prompt) for `--wait`.
    Send {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// Typed as-is (pasted when it spans lines); may be empty.
        text: String,
        /// Key names (`term::keys::parse_key`), pressed after the text.
        keys: Vec<String>,
        /// Press Return (its own write, [`SUBMIT_GAP`] after the text).
        enter: bool,
        /// `answer`: refuse (`wrong_agent`) unless the target is an agent session.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        agent_only: bool,
    },
    /// Closes sessions (all targets resolve first, or none is closed).
    Close {
        /// Who asks.
        caller: Caller,
        /// Links, uuids, id prefixes or titles.
        targets: Vec<String>,
    },
    /// Brings `target` to the front of the caller's project: attach front ends showing the
    /// project switch to it. Without a target, replies with the session in front now (else
    /// the project's newest session, which is then focused). The reply is
    /// [`reply::Focused`].
    Focus {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title; `None` asks what is in front.
        target: Option<String>,
        /// The pid of a front end that will show the session (`termio attach`): the session
        /// it runs in (if any) is never chosen, and naming it is `bad_request`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        viewer: Option<u32>,
    },
    /// Starts an agent session: `<shell> -i` in the caller's project, the agent's command typed
    /// once the shell is ready, `prompt` (with a provenance envelope when the caller is a
    /// session) typed once the agent is ready. Replies with a [`SpawnOutcome`].
    Spawn {
        /// Who asks.
        caller: Caller,
        /// The prompt.
        prompt: String,
        /// `--agent`'s definition (resolved by the client from its agents registry).
        #[serde(default)]
        agent: Option<Box<crate::termio::agents::AgentDef>>,
        /// Used when no `--agent` was given and the caller is no agent session (the agents
        /// file's `default`).
        #[serde(default)]
        fallback: Option<Box<crate::termio::agents::AgentDef>>,
        /// The shell program (the client's `$SHELL`, else `bash`).
        shell: String,
        /// The caller's environment ([`SpawnSpec::base_env`]); absent from older clients.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        env: Option<Vec<(String, String)>>,
        /// Columns, 1–500.
        width: u16,
        /// Rows, 1–500.
        height: u16,
    },
    /// One step of an agent `--wait`: blocks until turn `turn` is decided for a wait that
    /// started at status sequence `from_seq`, or `budget_ms` (100–1000) passes; replies with a
    /// `host::agent_status::TurnProbe`.
    Turn {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title.
        target: String,
        /// The turn (from [`SpawnOutcome`] or [`SendOutcome`]).
        turn: u64,
        /// The status sequence the wait starts after.
        from_seq: u64,
        /// The longest the probe blocks, ms (clamped 100–1000).
        budget_ms: u64,
    },
    /// A hook's status report (`termio agent report`) for the session `session` (the uuid
    /// from `TERMIO_SESSION`), whatever the project. Replies `{"ok": true, …}`.
    Report {
        /// The reporting session's uuid.
        session: String,
        /// `working`, `idle`, `done`, `needs-you` or `auto`.
        state: String,
        /// The agent's name (`--agent`).
        agent: String,
        /// The hook event (`--event`).
        event: String,
        /// The hook's stdin JSON (`null` when none).
        #[serde(default)]
        input: Value,
    },
    /// One step of a `--wait`: blocks until the screen version passes `since`, the session
    /// ends, or `budget_ms` (100–1000) passes; replies with a [`Probe`].
    Probe {
        /// Who asks.
        caller: Caller,
        /// A link, uuid, id prefix or title (see `termio::link::resolve`).
        target: String,
        /// The last screen version the client has seen.
        since: u64,
        /// The longest the probe blocks, ms (clamped 100–1000).
        budget_ms: u64,
    },
}

/// The host's answer to [`TermioRequest::Probe`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// The session's link.
    pub target: String,
    /// Its title now.
    pub title: String,
    /// The screen version now.
    pub version: u64,
    /// The program is still running.
    pub running: bool,
    /// [`termio_status`] now.
    pub status: Status,
    /// Time since the screen last changed, ms.
    pub quiet_ms: u64,
    /// `run`: the version just before the queued command was typed, once it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered: Option<u64>,
}

/// The host's answer to [`TermioRequest::Send`]: the reply plus what `--wait` needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendOutcome {
    #[serde(flatten)]
    pub reply: Success<reply::Sent>,
    /// The screen version before the input.
    pub since: u64,
    /// The input submitted a command line at a shell prompt.
    pub command: bool,
    /// Agent sessions: the turn a `--wait` follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    /// Agent sessions: the status sequence the wait starts after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// The host's answer to [`TermioRequest::Spawn`]: the reply plus what `--wait` needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpawnOutcome {
    #[serde(flatten)]
    pub reply: Success<reply::Created>,
    /// The queued prompt's turn.
    pub turn: u64,
    /// The status sequence the wait starts after.
    pub seq: u64,
}

/// Work the server runs on the connection's thread (the server's `Later`).
pub type Deferred = Box<dyn FnOnce() -> Result<Value, HostError> + Send>;

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("replies serialise")
}

fn now_err(e: Error) -> Deferred {
    Box::new(move || Ok(e.to_json()))
}

/// Handles one termio request against the registry. Registry changes (a new session, closed
/// ones removed) happen here; everything slow or blocking is returned for the connection's
/// own thread. Termio errors are replies (the contract's error shape), never `HostError`s.
pub fn handle(
    sessions: &mut HashMap<String, Arc<Session>>,
    hub: &Hub,
    request: TermioRequest,
) -> Deferred {
    match handle_inner(sessions, hub, request) {
        Ok(d) => d,
        Err(e) => now_err(e),
    }
}

fn handle_inner(
    sessions: &mut HashMap<String, Arc<Session>>,
    hub: &Hub,
    request: TermioRequest,
) -> Result<Deferred, Error> {
    let registry = Registry::load().unwrap_or_default();
    match request {
        TermioRequest::Focus {
            caller,
            target,
            viewer,
        } => {
            let project = project_for(sessions, &caller, &registry)?;
            let scope = project.to_string_lossy().into_owned();
            let own = viewer.and_then(|pid| session_of_process(sessions, pid));
            let own_id = own.as_ref().map(|s| s.id.clone());
            let s = match target {
                Some(t) => {
                    let s = resolve(sessions, &caller, &t, &registry)?;
                    if own_id.as_deref() == Some(s.id.as_str()) {
                        return Err(Error::new(
                            Code::BadRequest,
                            format!(
                                "{t} is the session this attach runs in: it cannot show itself"
                            ),
                        ));
                    }
                    s
                }
                None => {
                    let mut mine = in_project(sessions, &project, &registry);
                    mine.retain(|s| own_id.as_deref() != Some(s.id.as_str()));
                    let front = hub
                        .focused(&scope)
                        .and_then(|id| mine.iter().find(|s| s.id == id).cloned());
                    match front {
                        Some(s) => s,
                        None => mine
                            .into_iter()
                            .max_by_key(|s| (s.termio.created_at(), s.id.clone()))
                            .ok_or_else(|| {
                                Error::new(
                                    Code::NoTarget,
                                    "no session to show: this project has none besides the \
                                     caller's own (start one with `termio sessions run`)",
                                )
                            })?,
                    }
                }
            };
            hub.focus(&scope, &s.id);
            Ok(Box::new(move || {
                Ok(json(&Success::new(reply::Focused {
                    focused: link_of(&s),
                    title: title_of(&s),
                    project: scope,
                    session: s.id.clone(),
                    viewer_session: own_id,
                })))
            }))
        }
        TermioRequest::List { caller } => {
            let project = project_for(sessions, &caller, &registry)?;
            let mut mine = in_project(sessions, &project, &registry);
            Ok(Box::new(move || {
                mine.sort_by_key(|s| (s.termio.created_at(), s.id.clone()));
                let rows: Vec<SessionEntry> = mine.iter().map(|s| list_entry(s)).collect();
                Ok(json(&Success::new(reply::List {
                    project: project.to_string_lossy().into_owned(),
                    sessions: rows,
                })))
            }))
        }
        TermioRequest::Run {
            caller,
            command,
            shell,
            env,
            width,
            height,
        } => {
            let project = project_for(sessions, &caller, &registry)?;
            let s = start_run(&project, &command, &shell, env, (width, height), None)?;
            sessions.insert(s.id.clone(), s.clone());
            let worker = s.clone();
            let typed = command.clone();
            std::thread::Builder::new()
                .name("termio-typist".into())
                .spawn(move || deliver_when_ready(&worker, &typed))
                .map_err(|e| Error::new(Code::StartFailed, e.to_string()))?;
            Ok(Box::new(move || {
                Ok(json(&Success::new(reply::Created {
                    target: link_of(&s),
                    title: title_of(&s),
                    created: true,
                    queued: true,
                })))
            }))
        }
        TermioRequest::Spawn {
            caller,
            prompt,
            agent,
            fallback,
            shell,
            env,
            width,
            height,
        } => {
            if prompt.trim().is_empty() {
                return Err(Error::new(Code::NoText, "no prompt to spawn with"));
            }
            let project = project_for(sessions, &caller, &registry)?;
            let parent = match &caller {
                Caller::Session(uuid) => by_uuid(sessions, uuid),
                Caller::Project(_) => None,
            };
            let def = agent
                .map(|a| *a)
                .or_else(|| parent.as_ref().and_then(|p| p.termio.agent.def()))
                .or(fallback.map(|a| *a))
                .ok_or_else(|| {
                    Error::new(
                        Code::NoAgent,
                        "no agent to spawn: pass --agent <name> (the caller is no agent \
                         session and the agents file names no default)",
                    )
                })?;
            def.validate()?;
            let text = match &parent {
                Some(p) => crate::termio::agents::envelope(&link_of(p), &title_of(p), &prompt),
                None => prompt,
            };
            let s = start_run(
                &project,
                &def.command_line(),
                &shell,
                env,
                (width, height),
                Some(&def.name),
            )?;
            sessions.insert(s.id.clone(), s.clone());
            let turn = super::agent_status::start(&s, def, text)
                .map_err(|e| Error::new(Code::StartFailed, e))?;
            Ok(Box::new(move || {
                Ok(json(&SpawnOutcome {
                    reply: Success::new(reply::Created {
                        target: link_of(&s),
                        title: title_of(&s),
                        created: true,
                        queued: true,
                    }),
                    turn,
                    seq: 0,
                }))
            }))
        }
        TermioRequest::Turn {
            caller,
            target,
            turn,
            from_seq,
            budget_ms,
        } => {
            let s = resolve(sessions, &caller, &target, &registry)?;
            Ok(Box::new(move || {
                let budget = Duration::from_millis(budget_ms.clamp(100, 1000));
                Ok(json(&super::agent_status::probe(
                    &s, turn, from_seq, budget,
                )))
            }))
        }
        TermioRequest::Report {
            session,
            state,
            agent,
            event,
            input,
        } => {
            let s = by_uuid(sessions, &session).ok_or_else(|| {
                Error::new(Code::NotFound, format!("no session {session} on this host"))
            })?;
            Ok(Box::new(move || {
                match super::agent_status::apply_report(&s, &state, &agent, &event, &input) {
                    Ok(()) => Ok(serde_json::json!({"ok": true, "schema_version": 1})),
                    Err(m) => Ok(Error::new(Code::BadRequest, m).to_json()),
                }
            }))
        }
        TermioRequest::Read {
            caller,
            target,
            lines,
        } => {
            let s = resolve(sessions, &caller, &target, &registry)?;
            Ok(Box::new(move || {
                let text = s.lock().emulator.snapshot().text();
                let rows: Vec<&str> = text.split('\n').collect();
                let keep = lines.unwrap_or(rows.len()).min(rows.len());
                let screen = if text.is_empty() {
                    String::new()
                } else {
                    rows[rows.len() - keep..].join("\n")
                };
                Ok(json(&Success::new(reply::Read {
                    target: link_of(&s),
                    title: title_of(&s),
                    screen,
                })))
            }))
        }
        TermioRequest::Send {
            caller,
            target,
            text,
            keys,
            enter,
            agent_only,
        } => {
            let s = resolve(sessions, &caller, &target, &registry)?;
            if agent_only && !s.termio.agent.is_agent() {
                return Err(Error::new(
                    Code::WrongAgent,
                    format!(
                        "{target} is a plain terminal: `answer` is for agent sessions (use `send`)"
                    ),
                ));
            }
            let typed = input_steps(&text, &keys)?;
            if typed.steps.is_empty() && !enter {
                return Err(Error::new(Code::NoText, "nothing to send"));
            }
            if s.lock().state != State::Running {
                return Err(not_live(&s));
            }
            if s.termio
                .agent
                .view()
                .is_some_and(|v| v.status == Status::Exited)
            {
                return Err(Error::new(
                    Code::NotLive,
                    format!(
                        "the agent in {} exited back to its shell; nothing was typed (spawn a \
                         new one)",
                        link_of(&s)
                    ),
                ));
            }
            if s.termio.agent.is_agent()
                && keys.is_empty()
                && !text.is_empty()
                && text.trim().is_empty()
            {
                // An agent's prompt box ignores blank input: no turn would come (`spawn` says
                // the same of a blank prompt). An empty text stays a bare Return (answering
                // a dialog's highlighted choice).
                return Err(Error::new(
                    Code::NoText,
                    "nothing to send: the text is blank",
                ));
            }
            if s.termio.agent.is_agent() {
                let with_keys = !keys.is_empty();
                return Ok(Box::new(move || {
                    let since = s.lock().version;
                    let sent = match super::agent_status::send(&s, &text, typed, with_keys, enter) {
                        Ok(v) => v,
                        Err(_) => return Ok(not_live(&s).to_json()),
                    };
                    Ok(json(&SendOutcome {
                        reply: Success::new(reply::Sent {
                            target: link_of(&s),
                            title: title_of(&s),
                            transcript: sent
                                .transcript
                                .as_ref()
                                .map(|p| p.to_string_lossy().into_owned()),
                            cursor: sent.cursor,
                        }),
                        since,
                        command: false,
                        turn: Some(sent.turn),
                        seq: Some(sent.seq),
                    }))
                }));
            }
            Ok(Box::new(move || {
                // Typed before a `run` session's own command, the input would reach a booting
                // shell (SC-01) or run first: it waits for the command to be delivered.
                if s.termio.run.is_some() {
                    let until = Instant::now() + READY_MAX + SUBMIT_GRACE;
                    while !command_started(&s)
                        && s.lock().state == State::Running
                        && Instant::now() < until
                    {
                        std::thread::sleep(READY_POLL);
                    }
                }
                let (since, command) = match submit(&s, typed, enter) {
                    Ok(v) => v,
                    Err(_) => return Ok(not_live(&s).to_json()),
                };
                Ok(json(&SendOutcome {
                    reply: Success::new(reply::Sent {
                        target: link_of(&s),
                        title: title_of(&s),
                        transcript: None,
                        cursor: None,
                    }),
                    since,
                    command,
                    turn: None,
                    seq: None,
                }))
            }))
        }
        TermioRequest::Close { caller, targets } => {
            let mut closing: Vec<Arc<Session>> = Vec::new();
            for t in &targets {
                let s = resolve(sessions, &caller, t, &registry)?;
                if !closing.iter().any(|c| c.id == s.id) {
                    closing.push(s);
                }
            }
            for s in &closing {
                sessions.remove(&s.id);
                s.termio.agent.mark_closed();
            }
            Ok(Box::new(move || {
                let titles: Vec<String> = closing.iter().map(|s| title_of(s)).collect();
                for s in &closing {
                    s.begin_kill();
                }
                let deadline = Instant::now() + super::server::STOP_GRACE;
                for s in &closing {
                    super::server::stop_reply(s, deadline);
                }
                Ok(json(&Success::new(reply::Closed {
                    closed: closing.iter().map(|s| link_of(s)).collect(),
                    title: titles.join(", "),
                })))
            }))
        }
        TermioRequest::Probe {
            caller,
            target,
            since,
            budget_ms,
        } => {
            let s = resolve(sessions, &caller, &target, &registry)?;
            Ok(Box::new(move || Ok(json(&probe(&s, since, budget_ms)))))
        }
    }
}

/// One `--wait` step: blocks until the version passes `since`, the session ends or the budget
/// (clamped 100–1000 ms) passes, and never answers in less than 100 ms (so a client polling
/// in a loop polls at most ten times a second).
fn probe(s: &Session, since: u64, budget_ms: u64) -> Probe {
    let start = Instant::now();
    let budget = Duration::from_millis(budget_ms.clamp(100, 1000));
    s.wait_until(start + budget, |g: &Shared| {
        g.version > since || g.state != State::Running
    });
    let floor = start + Duration::from_millis(100);
    if let Some(rest) = floor.checked_duration_since(Instant::now()) {
        std::thread::sleep(rest);
    }
    let (version, running, quiet) = {
        let g = s.lock();
        let quiet = SystemTime::now()
            .duration_since(g.updated_at)
            .unwrap_or_default();
        (g.version, g.state == State::Running, quiet)
    };
    Probe {
        target: link_of(s),
        title: title_of(s),
        version,
        running,
        status: termio_status(s),
        quiet_ms: quiet.as_millis() as u64,
        delivered: s.termio.delivered(),
    }
}

fn not_live(s: &Session) -> Error {
    Error::new(Code::NotLive, format!("session {} has exited", link_of(s)))
}

/// What a send types: the inputs (for the journal) and their validated steps.
pub(super) struct Typed {
    inputs: Vec<Input>,
    steps: Vec<Step>,
}

/// Text (pasted when it spans lines, so it is one submission: case SC-03) then keys.
///
/// Errors: `bad_request` for an unknown key name.
pub(super) fn input_steps(text: &str, key_names: &[String]) -> Result<Typed, Error> {
    let mut inputs = Vec::new();
    if !text.is_empty() {
        inputs.push(if text.contains('\n') {
            Input::Paste(text.to_string())
        } else {
            Input::Text(text.to_string())
        });
    }
    inputs.extend(key_names.iter().map(|k| Input::Keys(k.clone())));
    let steps = keys::validate(&inputs).map_err(|e| Error::new(Code::BadRequest, e.to_string()))?;
    Ok(Typed { inputs, steps })
}

/// Writes the typed steps (one write each), then, after [`SUBMIT_GAP`], a Return as its own
/// write when `enter`; journals them. Returns the version before the input and whether it
/// submitted a command line at a shell prompt (which the status machine then follows).
///
/// Errors: `session_exited` when the program has ended.
pub(super) fn submit(s: &Session, typed: Typed, enter: bool) -> Result<(u64, bool), HostError> {
    let before = termio_status(s);
    let since = s.lock().version;
    let Typed { mut inputs, steps } = typed;
    let wrote_text = !steps.is_empty();
    if wrote_text {
        s.send(steps)?;
    }
    if enter {
        if wrote_text {
            std::thread::sleep(SUBMIT_GAP);
        }
        let key = keys::parse_key("Enter")
            .map_err(|e| HostError::new(ErrorCode::InvalidRequest, e.to_string()))?;
        s.send(vec![Step::Key(key)])?;
        inputs.push(Input::Keys("Enter".into()));
    }
    s.record(super::journal::Entry::Send { inputs });
    let command = enter && s.termio.is_shell() && matches!(before, Status::Idle | Status::Done);
    if command {
        let mut t = s.termio.track.lock();
        t.ran = true;
        t.submitted = Some(Instant::now());
    }
    Ok((since, command))
}

/// Starts the shell of a `run` session.
///
/// Errors: `start_failed` when the shell cannot be started.
fn start_run(
    project: &Path,
    command: &str,
    shell: &str,
    base_env: Option<Vec<(String, String)>>,
    (width, height): (u16, u16),
    agent: Option<&str>,
) -> Result<Arc<Session>, Error> {
    if command.trim().is_empty() {
        return Err(Error::new(Code::NoText, "no command to run"));
    }
    let id = super::session::new_id();
    let uuid = link::uuid_of(&id);
    let project_text = project.to_string_lossy().into_owned();
    let spec = SpawnSpec {
        argv: vec![shell.into(), "-i".into()],
        cwd: project.to_path_buf(),
        cols: width.clamp(1, 500),
        rows: height.clamp(1, 500),
        color_env: true,
        delete_ci_env: true,
        env: std::iter::once(("TERMIO_SESSION".into(), uuid))
            .chain(std::iter::once(("TERMIO_PROJECT".into(), project_text)))
            .chain(agent.map(|a| ("TERMIO_AGENT".into(), a.into())))
            .collect(),
        // The caller's own termio identity (it may be a session itself) is not the new one's.
        base_env: base_env.map(|env| {
            env.into_iter()
                .filter(|(k, _)| !k.starts_with("TERMIO_"))
                .collect()
        }),
    };
    let meta = Meta::of(&spec, Some((command.to_string(), project.to_path_buf())));
    let journals = super::paths::runtime_dir().join("journals");
    let journal_dir = super::paths::ensure_private_dir(&journals).ok();
    Session::start_with(&spec, journal_dir.as_deref(), id, meta)
        .map(Arc::new)
        .map_err(|e| Error::new(Code::StartFailed, e.message))
}

/// Whether a booting shell may be typed into.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Readiness {
    NotYet,
    Ready,
    Gone,
}

/// SC-01: a shell is ready once it has printed something (its prompt), the screen has been
/// still for [`READY_QUIET`] with the cursor after text on its row (a prompt, not a bare line
/// an rc file printed), and no rc-file command holds the terminal; or still for
/// [`READY_QUIET_FALLBACK`] whatever the cursor; or after [`READY_MAX`] in any case.
pub(super) fn shell_ready(s: &Session, started: Instant) -> Readiness {
    let (running, version, quiet, prompt_like) = {
        let g = s.lock();
        let (row, col) = g.emulator.cursor();
        let prompt_like = col > 0 && !g.emulator.row_text(row).trim().is_empty();
        let quiet = SystemTime::now()
            .duration_since(g.updated_at)
            .unwrap_or_default();
        (g.state == State::Running, g.version, quiet, prompt_like)
    };
    if !running {
        return Readiness::Gone;
    }
    if started.elapsed() >= READY_MAX {
        return Readiness::Ready;
    }
    let own_terminal = s.foreground_group().is_none_or(|g| g as u32 == s.pid);
    if version <= 1 || !own_terminal {
        return Readiness::NotYet;
    }
    if (quiet >= READY_QUIET && prompt_like) || quiet >= READY_QUIET_FALLBACK {
        Readiness::Ready
    } else {
        Readiness::NotYet
    }
}

/// Whether a `run` session's own command has been typed and has started: it holds the
/// terminal, or [`SUBMIT_GRACE`] has passed since its Return (a builtin, or a command already
/// done). Input typed before that could reach the shell's line editor and be lost or run
/// first.
fn command_started(s: &Session) -> bool {
    let Some((_, at)) = s.termio.track.lock().delivered else {
        return false;
    };
    at.elapsed() >= SUBMIT_GRACE || s.foreground_group().is_some_and(|g| g as u32 != s.pid)
}

/// The typist of a `run` session: waits for the shell to be ready, then types the command
/// and a Return, and records the version before them (for `--wait`) once both are written.
fn deliver_when_ready(s: &Session, command: &str) {
    let started = Instant::now();
    loop {
        std::thread::sleep(READY_POLL);
        match shell_ready(s, started) {
            Readiness::NotYet => continue,
            Readiness::Gone => return,
            Readiness::Ready => break,
        }
    }
    let Ok(typed) = input_steps(command, &[]) else {
        return;
    };
    if let Ok((version, _)) = submit(s, typed, true) {
        s.termio.track.lock().delivered = Some((version, Instant::now()));
    }
}

/// The caller's project: the project of its `TERMIO_SESSION` session, or the directory the
/// client resolved from its working directory.
///
/// Errors: `no_scope` when the caller's session is not one of this host's.
pub fn project_for(
    sessions: &HashMap<String, Arc<Session>>,
    caller: &Caller,
    registry: &Registry,
) -> Result<PathBuf, Error> {
    match caller {
        Caller::Project(p) => Ok(PathBuf::from(p)),
        Caller::Session(uuid) => by_uuid(sessions, uuid)
            .map(|s| project_of(&s, registry))
            .ok_or_else(|| {
                Error::new(
                    Code::NoScope,
                    format!("TERMIO_SESSION={uuid} names no session of this host"),
                )
            }),
    }
}

/// The session whose uuid (its link's, see `termio::link::uuid_of`) is `uuid`, whatever the
/// project: how `TERMIO_SESSION` names a session.
fn by_uuid(sessions: &HashMap<String, Arc<Session>>, uuid: &str) -> Option<Arc<Session>> {
    sessions
        .values()
        .find(|s| link::uuid_of(&s.id).eq_ignore_ascii_case(uuid.trim()))
        .cloned()
}

/// The sessions of `project` (unordered), e.g. for `list` and `watch`.
pub fn in_project(
    sessions: &HashMap<String, Arc<Session>>,
    project: &Path,
    registry: &Registry,
) -> Vec<Arc<Session>> {
    sessions
        .values()
        .filter(|s| project_of(s, registry) == project)
        .cloned()
        .collect()
}

/// The session a process runs in: the one whose program is `pid` or one of its ancestors
/// (followed through `/proc/<pid>/stat`'s parent pid).
pub fn session_of_process(
    sessions: &HashMap<String, Arc<Session>>,
    pid: u32,
) -> Option<Arc<Session>> {
    let mut p = pid;
    for _ in 0..64 {
        if p <= 1 {
            return None;
        }
        if let Some(s) = sessions.values().find(|s| s.pid == p) {
            return Some(s.clone());
        }
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses; split after the last `)`.
        let rest = &stat[stat.rfind(')')? + 1..];
        p = rest.split_whitespace().nth(1)?.parse().ok()?;
    }
    None
}

/// The session of the caller's project that `target` names.
///
/// Errors: `no_scope`, `not_found`, `ambiguous`.
fn resolve(
    sessions: &HashMap<String, Arc<Session>>,
    caller: &Caller,
    target: &str,
    registry: &Registry,
) -> Result<Arc<Session>, Error> {
    let project = project_for(sessions, caller, registry)?;
    let mut mine = in_project(sessions, &project, registry);
    mine.sort_by_key(|s| s.termio.created_at());
    let named: Vec<(String, String)> = mine
        .iter()
        .map(|s| (link::uuid_of(&s.id), title_of(s)))
        .collect();
    let candidates: Vec<Candidate> = mine
        .iter()
        .zip(&named)
        .map(|(s, (uuid, title))| Candidate {
            uuid,
            host_id: &s.id,
            title,
        })
        .collect();
    let i = link::resolve(target, &candidates)?;
    Ok(mine[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::protocol::Request;

    #[test]
    fn termio_requests_travel_inside_the_host_protocol() {
        let r = Request::Termio(TermioRequest::Send {
            caller: Caller::Project("/p".into()),
            target: "1a2b3c4d".into(),
            text: "hi".into(),
            keys: vec!["Tab".into()],
            enter: false,
            agent_only: false,
        });
        let line = serde_json::to_string(&r).unwrap();
        assert!(
            line.starts_with(r#"{"op":"termio","verb":"send","caller":{"project":"/p"}"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), r);
    }

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
