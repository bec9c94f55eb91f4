//! Crash recovery: what a successor host needs to know about the sessions of a host that died
//! (killed, crashed), so they are listed as `unavailable` instead of forgotten and their
//! processes do not outlive it (issue: the host redesign, crash recovery; contract: state
//! `unavailable`, "host died or PTY I/O failed").
//!
//! The live host keeps one [`Record`] per session in `<runtime dir>/sessions/<id>.json`
//! (0600, in the private runtime directory, written atomically: a temporary file renamed over
//! the old one), written when the session enters the registry and when its size changes, and
//! deleted when it leaves the registry (stop, retention). A host that exits normally leaves
//! none behind.
//!
//! A host starting ([`recover`]) reads the records left there. For each one of a session that
//! was live, it ends what is left of the session's processes (every process group of the
//! session the program led, children that ignore SIGHUP included: SIGTERM, SIGHUP, a short
//! grace, then SIGKILL), and rewrites the record as `unavailable` with `lostAt` and
//! `expiresAt` (lost + retention). Unavailable sessions are listed by `list --all`, can be
//! exported from their journal (kept on disk with them) and stopped (deleted); every other
//! request on them fails with `session_error` ([`Lost::error`]). Records past their
//! `expiresAt` are deleted with their journals, and journals no record accounts for (left by
//! hosts before this scheme) are swept.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::protocol::{ErrorCode, HostError, SessionId};
use crate::pty::group;

/// How long [`recover`] gives a dead host's processes between SIGTERM/SIGHUP and SIGKILL.
pub const RECOVERY_GRACE: Duration = Duration::from_millis(300);

/// What the host keeps on disk about one session (camelCase JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// `s_` + 32 hex.
    pub session_id: String,
    /// The program's pid: the leader of the session (`setsid`) its processes belong to.
    pub process_id: u32,
    /// The leader's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), so a
    /// reused pid is never taken for the session's leader.
    pub start_ticks: Option<u64>,
    /// The pid of the host that ran the session.
    pub host_pid: u32,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: String,
    /// Size in cells.
    pub width: u16,
    pub height: u16,
    /// When the session started, ms since the Unix epoch.
    pub started_at_ms: u64,
    /// When a successor host found the session lost (absent while the session is live).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_at_ms: Option<u64>,
    /// When the lost session is forgotten, ms since the Unix epoch (lost + retention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
}

/// A session lost with its host, as the registry keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lost {
    pub record: Record,
}

impl Lost {
    /// When it was found lost.
    pub fn lost_at(&self) -> SystemTime {
        from_ms(self.record.lost_at_ms.unwrap_or(0))
    }

    /// When it is forgotten.
    pub fn expires_at(&self) -> SystemTime {
        from_ms(self.record.expires_at_ms.unwrap_or(0))
    }

    /// The error every request but `list`, `journal` (export) and `stop` gets:
    /// `session_error`, saying what happened and what still works.
    pub fn error(&self) -> HostError {
        let r = &self.record;
        HostError::new(
            ErrorCode::SessionError,
            format!(
                "session {} is unavailable: the host that ran it (pid {}) stopped unexpectedly \
                 and its processes were ended at {}; it can still be listed (list --all), \
                 exported and stopped",
                r.session_id,
                r.host_pid,
                humantime::format_rfc3339_millis(self.lost_at())
            ),
        )
    }
}

/// Milliseconds since the Unix epoch.
pub fn to_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn from_ms(ms: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
}

/// The records directory: `<runtime dir>/sessions`.
pub fn records_dir(runtime: &Path) -> PathBuf {
    runtime.join("sessions")
}

/// The live host's side: keeps one record per session of the registry.
#[derive(Debug)]
pub struct Ledger {
    dir: PathBuf,
    /// Sessions with a record written by this host, and their size then.
    written: HashMap<String, (u16, u16)>,
}

impl Ledger {
    /// A ledger writing into `dir` (created 0700 on first write).
    pub fn new(dir: PathBuf) -> Ledger {
        Ledger {
            dir,
            written: HashMap::new(),
        }
    }

    /// Whether this host wrote a record for `id`.
    pub fn has(&self, id: &str) -> bool {
        self.written.contains_key(id)
    }

    /// Writes (or rewrites) a session's record. A failed write is reported and loses only
    /// the crash-recovery copy, never the session.
    ///
    /// Errors: the I/O error of the write.
    pub fn write(&mut self, record: &Record) -> std::io::Result<()> {
        self.written
            .insert(record.session_id.clone(), (record.width, record.height));
        write_record(&self.dir, record)
    }

    /// Records a session's new size (a rewrite only when it changed).
    ///
    /// Errors: as [`Ledger::write`].
    pub fn resize(&mut self, record: &Record) -> std::io::Result<()> {
        if self.written.get(&record.session_id) == Some(&(record.width, record.height)) {
            return Ok(());
        }
        self.write(record)
    }

    /// Deletes the records of sessions that are no longer in `live` (stopped, expired).
    pub fn retain(&mut self, live: impl Fn(&str) -> bool) {
        let dir = &self.dir;
        self.written.retain(|id, _| {
            let keep = live(id);
            if !keep {
                let _ = std::fs::remove_file(dir.join(format!("{id}.json")));
            }
            keep
        });
    }

    /// Lets go of `id`'s record without deleting it, for a session leaving the registry whose
    /// processes are still being ended: the record stays (a successor would end them) until
    /// the returned [`Release`] is dropped, once they are gone.
    pub fn release(&mut self, id: &str) -> Release {
        self.written.remove(id);
        Release(self.dir.join(format!("{id}.json")))
    }
}

/// A record to delete once its session's processes have ended (see [`Ledger::release`]).
#[derive(Debug)]
#[must_use = "the record is deleted when this is dropped"]
pub struct Release(PathBuf);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes `record` to `<dir>/<id>.json` atomically (0600 temporary file, renamed).
fn write_record(dir: &Path, record: &Record) -> std::io::Result<()> {
    super::paths::ensure_private_dir(dir).map_err(std::io::Error::other)?;
    let path = dir.join(format!("{}.json", record.session_id));
    let tmp = dir.join(format!(".{}.json.tmp", record.session_id));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&tmp)?;
    f.write_all(&serde_json::to_vec(record).map_err(std::io::Error::other)?)?;
    drop(f);
    std::fs::rename(&tmp, &path)
}

/// The start time of `pid` in clock ticks since boot (`/proc/<pid>/stat` field 22).
pub fn start_ticks(pid: u32) -> Option<u64> {
    stat_field(&pid.to_string(), 22)
}

/// Field `n` (1-based, as proc(5) numbers them; `n >= 3`) of `/proc/<pid>/stat`.
fn stat_field(pid: &str, n: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command start at field 3 (state).
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(n - 3)?.parse().ok()
}

/// This process's session id (`/proc/self/stat` field 6). It is 0 when the session's leader
/// lives outside our PID namespace (a container started from another session), which
/// `getsid(2)` also reports and which no process can have, so it matches nothing.
fn own_session() -> u32 {
    stat_field("self", 6).map_or(0, |sid| sid as u32)
}

/// What [`recover`] found and did.
#[derive(Debug, Default)]
pub struct Recovered {
    /// Sessions lost with a dead host (newly found, or found by an earlier successor and not
    /// expired yet), oldest first.
    pub lost: Vec<Lost>,
    /// Sessions whose processes were ended now.
    pub ended: usize,
    /// Records and journals deleted (expired, or journals no record accounts for).
    pub swept: usize,
}

/// Recovers the sessions of a dead host (see the module doc) from `runtime`'s records, at
/// `now`, retaining lost sessions for `retention`. Call it once the socket is bound (no other
/// host is serving `runtime`). Unreadable records are deleted.
pub fn recover(runtime: &Path, now: SystemTime, retention: Duration) -> Recovered {
    let dir = records_dir(runtime);
    let journals = runtime.join("journals");
    let mut out = Recovered::default();
    let mut fresh: Vec<Record> = Vec::new();
    for (id, path) in entries(&dir, ".json") {
        let record = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
            .filter(|r| r.session_id == id);
        let Some(mut record) = record else {
            let _ = std::fs::remove_file(&path);
            out.swept += 1;
            continue;
        };
        if record.lost_at_ms.is_none() {
            record.lost_at_ms = Some(to_ms(now));
            record.expires_at_ms = Some(to_ms(now + retention));
            fresh.push(record.clone());
        }
        if record.expires_at_ms.is_some_and(|t| t <= to_ms(now)) {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_file(journals.join(format!("{id}.jsonl")));
            out.swept += 1;
            continue;
        }
        out.lost.push(Lost { record });
    }
    out.ended = end_processes(&fresh);
    for r in &fresh {
        // Rewritten as lost, so a later host keeps its lostAt and does not signal again.
        let _ = write_record(&dir, r);
    }
    let known: HashSet<String> = out
        .lost
        .iter()
        .map(|l| l.record.session_id.clone())
        .collect();
    for (id, path) in entries(&journals, ".jsonl") {
        if !known.contains(&id) {
            let _ = std::fs::remove_file(path);
            out.swept += 1;
        }
    }
    out.lost.sort_by(|a, b| {
        (a.record.started_at_ms, &a.record.session_id)
            .cmp(&(b.record.started_at_ms, &b.record.session_id))
    });
    out
}

/// `(id, path)` of every `<session id><suffix>` file in `dir`.
fn entries(dir: &Path, suffix: &str) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_suffix(suffix)?;
            SessionId::well_formed(id).then(|| (id.to_string(), e.path()))
        })
        .collect()
}

/// Ends every process left in the sessions of `records` (one `/proc` scan for all): SIGTERM,
/// SIGHUP and SIGCONT, [`RECOVERY_GRACE`], then SIGKILL. A leader whose pid now belongs to a
/// process that started at another time is someone else's: its session is left alone (while
/// any member of a session lives, Linux does not reuse the session's id, so the members found
/// are the lost session's). Returns how many sessions had processes left.
fn end_processes(records: &[Record]) -> usize {
    let sids: HashSet<u32> = records
        .iter()
        .filter(|r| may_end(r.process_id, r.start_ticks))
        .map(|r| r.process_id)
        .collect();
    if sids.is_empty() {
        return 0;
    }
    let alive = group::members(&sids).len();
    if alive > 0 {
        group::begin_end(&sids);
        group::finish_end(&sids, Instant::now() + RECOVERY_GRACE);
    }
    alive
}

/// Whether the session led by `pid` may be ended on a record's word: never init's or this
/// process's own session (a damaged record must not take the system down with it), and only
/// when the leader is gone or is the very process the record saw start (`start_ticks`), not a
/// process that reused its pid.
fn may_end(pid: u32, recorded_ticks: Option<u64>) -> bool {
    if pid <= 1 || pid == std::process::id() || pid == own_session() {
        return false;
    }
    match start_ticks(pid) {
        None => true,
        now => recorded_ticks.is_some() && now == recorded_ticks,
    }
}

/// A session's journal, read back from its file (for `export` of a lost session).
///
/// Errors: `io_error` when the file cannot be read; unreadable lines are skipped.
pub fn read_journal(runtime: &Path, id: &str) -> Result<Vec<super::journal::Entry>, HostError> {
    let path = runtime.join("journals").join(format!("{id}.jsonl"));
    let text = std::fs::read_to_string(&path).map_err(|e| {
        HostError::new(
            ErrorCode::IoError,
            format!("cannot read the journal of {id}: {e}"),
        )
    })?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

/// Deletes a lost session's record and journal (`stop` on it).
pub fn forget(runtime: &Path, id: &str) {
    let _ = std::fs::remove_file(records_dir(runtime).join(format!("{id}.json")));
    let _ = std::fs::remove_file(runtime.join("journals").join(format!("{id}.jsonl")));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, pid: u32) -> Record {
        Record {
            session_id: id.into(),
            process_id: pid,
            start_ticks: start_ticks(pid),
            host_pid: 1,
            argv: vec!["sleep".into(), "600".into()],
            cwd: "/".into(),
            width: 80,
            height: 24,
            started_at_ms: 1_000,
            lost_at_ms: None,
            expires_at_ms: None,
        }
    }

    const A: &str = "s_0123456789abcdef0123456789abcdef";
    const B: &str = "s_fedcba9876543210fedcba9876543210";

    #[test]
    fn a_record_round_trips_and_a_successor_marks_it_lost_once() {
        let rt = tempfile::tempdir().unwrap();
        let mut ledger = Ledger::new(records_dir(rt.path()));
        // No process has pid u32::MAX: nothing to end.
        let mut r = record(A, u32::MAX);
        r.start_ticks = None;
        ledger.write(&r).unwrap();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(100);
        let found = recover(rt.path(), now, Duration::from_secs(60));
        assert_eq!(found.lost.len(), 1);
        let lost = &found.lost[0];
        assert_eq!(lost.record.lost_at_ms, Some(100_000));
        assert_eq!(lost.record.expires_at_ms, Some(160_000));
        // A second successor keeps lostAt; past expiresAt the record and journal go.
        let again = recover(
            rt.path(),
            now + Duration::from_secs(10),
            Duration::from_secs(60),
        );
        assert_eq!(again.lost[0].record.lost_at_ms, Some(100_000));
        std::fs::create_dir_all(rt.path().join("journals")).unwrap();
        std::fs::write(rt.path().join("journals").join(format!("{A}.jsonl")), "").unwrap();
        let late = recover(
            rt.path(),
            now + Duration::from_secs(61),
            Duration::from_secs(60),
        );
        assert!(late.lost.is_empty());
        assert!(!rt
            .path()
            .join("journals")
            .join(format!("{A}.jsonl"))
            .exists());
        assert!(!records_dir(rt.path()).join(format!("{A}.json")).exists());
    }

    #[test]
    fn journals_without_a_record_and_foreign_files_are_told_apart() {
        let rt = tempfile::tempdir().unwrap();
        let j = rt.path().join("journals");
        std::fs::create_dir_all(&j).unwrap();
        std::fs::write(j.join(format!("{B}.jsonl")), "").unwrap();
        std::fs::write(j.join("notes.jsonl"), "").unwrap();
        let found = recover(rt.path(), SystemTime::now(), Duration::from_secs(60));
        assert_eq!(found.swept, 1);
        assert!(
            !j.join(format!("{B}.jsonl")).exists(),
            "orphan journal swept"
        );
        assert!(
            j.join("notes.jsonl").exists(),
            "not a session's: left alone"
        );
    }

    #[test]
    fn retain_deletes_the_records_of_sessions_gone_from_the_registry() {
        let rt = tempfile::tempdir().unwrap();
        let mut ledger = Ledger::new(records_dir(rt.path()));
        ledger.write(&record(A, u32::MAX)).unwrap();
        ledger.write(&record(B, u32::MAX)).unwrap();
        ledger.retain(|id| id == A);
        assert!(records_dir(rt.path()).join(format!("{A}.json")).exists());
        assert!(!records_dir(rt.path()).join(format!("{B}.json")).exists());
        assert!(ledger.has(A) && !ledger.has(B));
    }

    #[test]
    fn a_damaged_record_never_ends_init_this_host_or_a_reused_pid() {
        let me = std::process::id();
        assert!(!may_end(0, None) && !may_end(1, start_ticks(1)));
        assert!(!may_end(me, start_ticks(me)), "never the host itself");
        // A live process whose start time the record does not know, or knows otherwise.
        let child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(!may_end(pid, None));
        assert!(!may_end(pid, start_ticks(pid).map(|t| t + 1)));
        assert!(may_end(pid, start_ticks(pid)));
        let mut child = child;
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            may_end(pid, None),
            "a leader that is gone: its session's members may go"
        );
    }

    #[test]
    fn start_ticks_reads_field_22() {
        let me = std::process::id();
        assert!(start_ticks(me).is_some());
        // Field 6; 0 in a container whose session leader is outside its PID namespace.
        let sid = std::fs::read_to_string("/proc/self/stat").unwrap();
        let sid: u32 = sid[sid.rfind(')').unwrap() + 1..]
            .split_whitespace()
            .nth(3)
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(own_session(), sid);
        assert_eq!(start_ticks(me), start_ticks(me));
        assert_eq!(start_ticks(u32::MAX), None);
    }
}
