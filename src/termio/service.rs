//! termio's service on the session host (shared/spec/termio-sessions.md): the host
//! extension ([`Service`], installed by the binaries' hidden host subcommand through
//! [`extension`]) that handles the `termio` requests ([`crate::termio::wire::TermioRequest`]),
//! keeps termio's data per session ([`Table`]), adds termio's part to every session summary
//! the host publishes and, at each monitor tick, the `needs-you` questions watchers would have
//! missed and the stall alarm's `stalled` events ([`super::stall`]).
//!
//! Callers are resolved to their project ([`project_for`]: `TERMIO_SESSION`'s session, or
//! the directory the client resolved) and see only its sessions. `run` starts an interactive
//! shell (`<shell> -i`) in the project directory with `TERMIO_SESSION=<uuid>` and
//! `TERMIO_PROJECT=<project>` in its environment, and a typist thread types the command once
//! the shell is ready (case SC-01, [`super::typist`]). `spawn` does the same for an agent's
//! command and hands the session to the agent status machine ([`super::status`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::error::{Code, Error};
use super::link::{self, Candidate};
use super::project::Registry;
use super::reply::{self, SessionEntry, Status, Success};
use super::stall::{self, Detector, Disk, Sample, StallConfig};
use super::status::monitor;
use super::status::shell::SUBMIT_GRACE;
use super::tracked::{
    entry_with, link_of, list_entry, project_of, termio_status, title_of, Meta, Table, Tracked,
};
use super::typist::{
    command_started, deliver_when_ready, input_steps, submit, READY_MAX, READY_POLL,
};
use super::wire::{
    Caller, Probe, Reported, SendOutcome, SpawnOutcome, SummaryPart, TermioRequest, OP,
};
use crate::host::events::{Event, Summary};
use crate::host::extension::{Context, Deferred, Extension, Fresh, Part, Tick};
use crate::host::protocol::{ErrorCode, ExtensionRequest, HostError, Launch, SessionId};
use crate::host::session::{Session, Sessions, Shared, State};
use crate::pty::SpawnSpec;

/// termio's extension of the session host: its table of per-session data and the stall
/// detector (with its measurements on disk and when its config was read; only the host's
/// monitor thread uses it).
#[derive(Default)]
pub struct Service {
    table: Table,
    stall: Mutex<Option<(Detector, Disk, Instant)>>,
}

/// termio's extension, for the binaries to install when they run the host.
pub fn extension() -> Arc<dyn Extension> {
    Arc::new(Service::default())
}

impl Extension for Service {
    fn name(&self) -> &'static str {
        OP
    }

    /// Heals the installed `termio` agent skill while session control is on; never fatal.
    fn host_started(&self) {
        super::skill::reassert_at_host_start();
    }

    fn session_started(&self, session: &Arc<Session>, launch: &Launch) {
        self.table
            .insert(&session.id, Arc::new(Meta::of_launch(launch)));
    }

    fn session_closed(&self, id: &str) {
        self.table.remove(id);
    }

    /// Handles one termio request against the registry. Registry changes (a new session,
    /// closed ones removed) happen here; everything slow or blocking is returned for a
    /// reply thread. Termio errors are replies (the contract's error shape); a
    /// body that is no termio request is the host's `invalid_request`, as any malformed
    /// request.
    fn handle(&self, request: ExtensionRequest, host: Context<'_>) -> Deferred {
        let request = match request.parse::<TermioRequest>() {
            Ok(r) => r,
            Err(e) => {
                let e =
                    HostError::new(ErrorCode::InvalidRequest, format!("malformed request: {e}"));
                return Box::new(move || Err(e));
            }
        };
        match handle_inner(&self.table, host, request) {
            Ok(d) => d,
            Err(e) => Box::new(move || Ok(e.to_json())),
        }
    }

    /// termio's part of each summary ([`SummaryPart`]); its mark is the agent status sequence
    /// the part reflects (0 for plain terminals).
    fn parts(&self, sessions: &[Arc<Session>]) -> Vec<Option<Part>> {
        let registry = Registry::load().unwrap_or_default();
        sessions
            .iter()
            .map(|s| {
                let s = self.table.get(s);
                // One view of the agent for the whole part, so its fields (and `seq`) agree.
                let view = s.meta.agent.view();
                let part = SummaryPart {
                    entry: entry_with(&s, view.as_ref()),
                    project: project_of(&s, &registry).to_string_lossy().into_owned(),
                    settling: view.as_ref().is_some_and(|v| v.settling),
                };
                Some(Part {
                    value: json(&part),
                    mark: view.map_or(0, |v| v.seq),
                })
            })
            .collect()
    }

    /// The stall alarms of the tick, and per session the `needs-you` summaries of questions
    /// asked (and perhaps answered) since the last tick: a supervisor must see every one.
    fn tick(&self, fresh: &[Fresh<'_>]) -> Tick {
        let parts: Vec<Option<SummaryPart>> = fresh.iter().map(|f| f.summary.part(OP)).collect();
        let alarms = self.detect_stalls(fresh, &parts);
        let mut missed = HashMap::new();
        for (f, part) in fresh.iter().zip(&parts) {
            let (Some(part), Some(meta)) = (part, self.table.meta(f.id)) else {
                continue;
            };
            // Only changes up to the summary's own mark, so they precede it; later ones are
            // the next tick's.
            let (_, asked) = meta
                .agent
                .asked_since(meta.asked_seq.load(Ordering::SeqCst));
            meta.asked_seq.fetch_max(f.mark, Ordering::SeqCst);
            let asking_now = part.entry.status == Status::NeedsYou;
            let past: Vec<Summary> = asked
                .into_iter()
                .filter(|(s, _)| *s <= f.mark && !(asking_now && *s == f.mark))
                .map(|(_, question)| {
                    let mut asked = part.clone();
                    asked.entry.status = Status::NeedsYou;
                    if question.is_some() {
                        asked.entry.prompt = question;
                    }
                    let mut summary = f.summary.clone();
                    summary.parts.insert(OP.to_string(), json(&asked));
                    summary
                })
                .collect();
            if !past.is_empty() {
                missed.insert(f.id.to_string(), past);
            }
        }
        Tick { alarms, missed }
    }
}

impl Service {
    /// Runs the stall detector over this tick's summaries (it may run `git`); returns a
    /// `stalled` event for each alarm that fired.
    fn detect_stalls(&self, fresh: &[Fresh<'_>], parts: &[Option<SummaryPart>]) -> Vec<Event> {
        let mut guard = self.stall.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let (detector, disk, loaded) =
            guard.get_or_insert_with(|| (Detector::new(StallConfig::load()), Disk::default(), now));
        if now.duration_since(*loaded) >= stall::RELOAD {
            detector.set_config(StallConfig::load());
            *loaded = now;
        }
        let mut fired = Vec::new();
        for (f, part) in fresh.iter().zip(parts) {
            let Some(part) = part else { continue };
            let sample = Sample {
                status: part.entry.status,
                project: Path::new(&part.project),
                transcript: part.entry.transcript.as_deref().map(Path::new),
                output_lines: f.session.lock().emulator.line_feeds(),
            };
            if let Some(evidence) = detector.observe(f.id, &sample, now, disk) {
                fired.push(Event::Stalled {
                    session_id: f.id.to_string(),
                    summary: Some(f.summary.clone()),
                    evidence,
                });
            }
        }
        let live: std::collections::HashSet<&str> = fresh.iter().map(|f| f.id).collect();
        detector.retain(|id| live.contains(id));
        fired
    }
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("replies serialise")
}

/// Puts a session termio started into its table and the host's registry.
fn adopt(table: &Table, sessions: &mut Sessions, s: &Tracked) {
    table.insert(&s.id, s.meta.clone());
    sessions.insert(s.id.clone(), s.session.clone());
}

/// One termio request against the registry (see [`Service`]'s `handle`); a termio error is
/// the reply.
fn handle_inner(
    table: &Table,
    host: Context<'_>,
    request: TermioRequest,
) -> Result<Deferred, Error> {
    let Context { sessions, hub } = host;
    let registry = Registry::load().unwrap_or_default();
    let all = table.all(sessions);
    match request {
        TermioRequest::Focus {
            caller,
            target,
            viewer,
        } => {
            let project = project_for(&all, &caller, &registry)?;
            let scope = project.to_string_lossy().into_owned();
            let own = viewer.and_then(|pid| session_of_process(sessions, pid));
            let own_id = own.as_ref().map(|s| s.id.to_string());
            let s = match target {
                Some(t) => {
                    let s = resolve(&all, &caller, &t, &registry)?;
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
                    let mut mine = in_project(&all, &project, &registry);
                    mine.retain(|s| own_id.as_deref() != Some(s.id.as_str()));
                    let front = hub
                        .focused(&scope)
                        .and_then(|id| mine.iter().find(|s| *s.id == *id).cloned());
                    match front {
                        Some(s) => s,
                        None => mine
                            .into_iter()
                            .max_by_key(|s| (s.meta.created_at(), s.id.clone()))
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
                    session: s.id.to_string(),
                    viewer_session: own_id,
                })))
            }))
        }
        TermioRequest::List { caller } => {
            let project = project_for(&all, &caller, &registry)?;
            let mut mine = in_project(&all, &project, &registry);
            Ok(Box::new(move || {
                mine.sort_by_key(|s| (s.meta.created_at(), s.id.clone()));
                let rows: Vec<SessionEntry> = mine.iter().map(list_entry).collect();
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
            let project = project_for(&all, &caller, &registry)?;
            let s = start_run(&project, &command, &shell, env, (width, height), None)?;
            adopt(table, sessions, &s);
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
            let project = project_for(&all, &caller, &registry)?;
            let parent = match &caller {
                Caller::Session(uuid) => by_uuid(&all, uuid),
                Caller::Project(_) => None,
            };
            let def = agent
                .map(|a| *a)
                .or_else(|| parent.as_ref().and_then(|p| p.meta.agent.def()))
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
            adopt(table, sessions, &s);
            let turn =
                monitor::start(&s, def, text).map_err(|e| Error::new(Code::StartFailed, e))?;
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
            let s = resolve(&all, &caller, &target, &registry)?;
            Ok(Box::new(move || {
                let budget = Duration::from_millis(budget_ms.clamp(100, 1000));
                Ok(json(&monitor::probe(&s, turn, from_seq, budget)))
            }))
        }
        TermioRequest::Report {
            session,
            state,
            agent,
            event,
            input,
        } => {
            // The session the report names, unless the agent's own session id in the input
            // says it is another's (Codex runs every TUI's hooks with one TUI's environment).
            let named = by_uuid(&all, &session);
            let routed = monitor::route(&all, named.clone(), &agent, &input);
            if named.is_none() && routed.is_none() {
                return Err(Error::new(
                    Code::NotFound,
                    format!("no session {session} on this host"),
                ));
            }
            Ok(Box::new(move || {
                let Some(s) = routed else {
                    // Another thread's report (one no session knows): nothing to book.
                    return Ok(json(&Success::new(Reported {})));
                };
                match monitor::apply_report(&s, &state, &agent, &event, &input) {
                    Ok(()) => Ok(json(&Success::new(Reported {}))),
                    Err(m) => Ok(Error::new(Code::BadRequest, m).to_json()),
                }
            }))
        }
        TermioRequest::Read {
            caller,
            target,
            lines,
        } => {
            let s = resolve(&all, &caller, &target, &registry)?;
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
            let s = resolve(&all, &caller, &target, &registry)?;
            if agent_only && !s.meta.agent.is_agent() {
                return Err(Error::new(
                    Code::WrongAgent,
                    format!(
                        "{target} is a plain terminal: `answer` is for agent sessions (use `send`)"
                    ),
                ));
            }
            let typed = input_steps(&text, &keys)?;
            if typed.is_empty() && !enter {
                return Err(Error::new(Code::NoText, "nothing to send"));
            }
            if s.lock().state != State::Running {
                return Err(not_live(&s));
            }
            if s.meta
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
            if s.meta.agent.is_agent()
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
            if s.meta.agent.is_agent() {
                let with_keys = !keys.is_empty();
                return Ok(Box::new(move || {
                    let since = s.lock().version;
                    let sent = match monitor::send(&s, &text, typed, with_keys, enter) {
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
                if s.meta.is_run() {
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
            let mut closing: Vec<Tracked> = Vec::new();
            for t in &targets {
                let s = resolve(&all, &caller, t, &registry)?;
                if !closing.iter().any(|c| c.id == s.id) {
                    closing.push(s);
                }
            }
            for s in &closing {
                sessions.remove(&s.id);
                s.meta.agent.mark_closed();
            }
            Ok(Box::new(move || {
                let titles: Vec<String> = closing.iter().map(title_of).collect();
                for s in &closing {
                    s.begin_kill();
                }
                let deadline = Instant::now() + crate::host::server::STOP_GRACE;
                for s in &closing {
                    crate::host::server::stop_reply(s, deadline);
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
            let s = resolve(&all, &caller, &target, &registry)?;
            Ok(Box::new(move || Ok(json(&probe(&s, since, budget_ms)))))
        }
    }
}

/// One `--wait` step: blocks until the version passes `since`, the session ends or the budget
/// (clamped 100–1000 ms) passes, and never answers in less than 100 ms (so a client polling
/// in a loop polls at most ten times a second).
fn probe(s: &Tracked, since: u64, budget_ms: u64) -> Probe {
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
        delivered: s.meta.delivered(),
    }
}

fn not_live(s: &Tracked) -> Error {
    Error::new(Code::NotLive, format!("session {} has exited", link_of(s)))
}

/// Starts the shell of a `run` session (not yet in the registry: see [`adopt`]).
///
/// Errors: `start_failed` when the shell cannot be started.
fn start_run(
    project: &Path,
    command: &str,
    shell: &str,
    base_env: Option<Vec<(String, String)>>,
    (width, height): (u16, u16),
    agent: Option<&str>,
) -> Result<Tracked, Error> {
    if command.trim().is_empty() {
        return Err(Error::new(Code::NoText, "no command to run"));
    }
    let id = SessionId::generate();
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
    let journals = crate::host::paths::runtime_dir().join("journals");
    let journal_dir = crate::host::paths::ensure_private_dir(&journals).ok();
    let session = Session::start_with(&spec, journal_dir.as_deref(), id, false)
        .map_err(|e| Error::new(Code::StartFailed, e.message))?;
    Ok(Tracked {
        session: Arc::new(session),
        meta: Arc::new(meta),
    })
}

/// The caller's project: the project of its `TERMIO_SESSION` session, or the directory the
/// client resolved from its working directory.
///
/// Errors: `no_scope` when the caller's session is not one of this host's.
pub fn project_for(
    all: &[Tracked],
    caller: &Caller,
    registry: &Registry,
) -> Result<PathBuf, Error> {
    match caller {
        Caller::Project(p) => Ok(PathBuf::from(p)),
        Caller::Session(uuid) => by_uuid(all, uuid)
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
fn by_uuid(all: &[Tracked], uuid: &str) -> Option<Tracked> {
    all.iter()
        .find(|s| link::uuid_of(&s.id).eq_ignore_ascii_case(uuid.trim()))
        .cloned()
}

/// The sessions of `project` (unordered), e.g. for `list` and `watch`.
pub fn in_project(all: &[Tracked], project: &Path, registry: &Registry) -> Vec<Tracked> {
    all.iter()
        .filter(|s| project_of(s, registry) == project)
        .cloned()
        .collect()
}

/// The session a process runs in: the one whose program is `pid` or one of its ancestors
/// (followed through `/proc/<pid>/stat`'s parent pid).
pub fn session_of_process(sessions: &Sessions, pid: u32) -> Option<Arc<Session>> {
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
    all: &[Tracked],
    caller: &Caller,
    target: &str,
    registry: &Registry,
) -> Result<Tracked, Error> {
    let project = project_for(all, caller, registry)?;
    let mut mine = in_project(all, &project, registry);
    mine.sort_by_key(|s| s.meta.created_at());
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
        let r = TermioRequest::Send {
            caller: Caller::Project("/p".into()),
            target: "1a2b3c4d".into(),
            text: "hi".into(),
            keys: vec!["Tab".into()],
            enter: false,
            agent_only: false,
        };
        let line = serde_json::to_string(&super::super::wire::request(&r)).unwrap();
        assert!(
            line.starts_with(r#"{"op":"termio","verb":"send","caller":{"project":"/p"}"#),
            "{line}"
        );
        let Request::Extension(carried) = serde_json::from_str::<Request>(&line).unwrap() else {
            panic!("not an extension request: {line}")
        };
        assert_eq!(carried.op, OP);
        assert_eq!(carried.parse::<TermioRequest>().unwrap(), r);
    }
}
