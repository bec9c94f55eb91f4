//! The stall alarm (shared/spec/termio-sessions.md, "Supervising with watch", "Stall alarm"):
//! a session still `working` that has made no repository change and next-to-no progress for
//! [`StallConfig::after`] (20 min by default) is reported once per quiet stretch as a
//! `stalled` event with the detector's reasoning in `evidence`
//! (`"working 42m, no repo change, transcript +3 lines"`).
//!
//! Progress is any of:
//! - a repository change: the project's git HEAD, its `git status` entries, or the mtime or
//!   size of a changed file moved (outside git: the mtimes and sizes of the project's files);
//! - transcript growth of [`StallConfig::lines`] lines or more, for a session with a
//!   transcript (an agent);
//! - output of [`StallConfig::lines`] lines or more (LF bytes written to the PTY), for a
//!   session without one: sustained output such as a long build streaming its log suppresses
//!   the alarm, a spinner redrawn in place does not.
//!
//! Progress re-arms the alarm, and so does leaving `working`. The alarm never changes a
//! session's status and never acts on the session: signal, never kill.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::config::Config;
use super::reply::Status;

/// Quiet time after which a working session is reported, when the config does not say.
pub const DEFAULT_AFTER: Duration = Duration::from_secs(20 * 60);

/// Lines of growth below which a transcript (or the output) counts as "next to no" growth.
pub const DEFAULT_LINES: u64 = 10;

/// How often the host reads the config file again for new thresholds.
pub const RELOAD: Duration = Duration::from_secs(5);

/// Files hashed at most when the project is not a git repository.
pub const WALK_LIMIT: usize = 20_000;

/// The detector's thresholds, from the termio config file (`stall_after`: a duration like
/// `20m`, `90s` or `500ms`; `stall_lines`: a line count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StallConfig {
    /// Quiet time before the alarm.
    pub after: Duration,
    /// Growth (transcript or output lines) that counts as progress.
    pub lines: u64,
}

impl Default for StallConfig {
    fn default() -> StallConfig {
        StallConfig {
            after: DEFAULT_AFTER,
            lines: DEFAULT_LINES,
        }
    }
}

impl StallConfig {
    /// Reads the thresholds from the termio config; anything missing or unreadable is the
    /// default (the host must not fail over a config typo: `termio` verbs report it as
    /// `bad_request`). The host reads it again every [`RELOAD`], so edits apply without a
    /// restart.
    pub fn load() -> StallConfig {
        let config = Config::load().unwrap_or_default();
        let mut c = StallConfig::default();
        if let Some(after) = config
            .stall_after
            .as_deref()
            .and_then(|s| crate::duration::parse_duration(s).ok())
            .filter(|d| !d.is_zero())
        {
            c.after = after;
        }
        if let Some(lines) = config.stall_lines {
            c.lines = lines;
        }
        c
    }

    /// How often progress is measured: a quarter of [`Self::after`], between 100 ms and 30 s.
    pub fn check_every(&self) -> Duration {
        (self.after / 4).clamp(Duration::from_millis(100), Duration::from_secs(30))
    }
}

/// What the detector needs to know about a session at one tick.
#[derive(Debug, Clone)]
pub struct Sample<'a> {
    /// The session's termio status.
    pub status: Status,
    /// The session's project directory.
    pub project: &'a Path,
    /// Its transcript, when it has one.
    pub transcript: Option<&'a Path>,
    /// LF bytes its program has written so far ([`crate::term::Emulator::line_feeds`]).
    pub output_lines: u64,
}

/// One working stretch of one session.
struct Track {
    working_since: Instant,
    /// Last progress (or the start of the stretch).
    mark: Instant,
    last_check: Instant,
    transcript_at_mark: u64,
    output_at_mark: u64,
    /// The project's fingerprint at the last check (`None` before the first): measured only
    /// from the first check on, so a stretch shorter than [`StallConfig::check_every`] never
    /// walks the project.
    repo_at_mark: Option<u64>,
    fired: bool,
}

/// A transcript's line count, kept up to date by reading only what was appended.
#[derive(Default)]
struct LineCounter {
    offset: u64,
    lines: u64,
}

impl LineCounter {
    fn update(&mut self, path: &Path) -> u64 {
        let Ok(mut f) = std::fs::File::open(path) else {
            return self.lines;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.offset {
            // Rewritten from scratch: count again.
            *self = LineCounter::default();
        }
        if f.seek(SeekFrom::Start(self.offset)).is_ok() {
            let mut buf = Vec::new();
            if f.read_to_end(&mut buf).is_ok() {
                self.lines += memchr::memchr_iter(b'\n', &buf).count() as u64;
                self.offset += buf.len() as u64;
            }
        }
        self.lines
    }
}

/// How the detector measures progress: the project's state and a transcript's length. The
/// host measures on disk ([`Disk`]); tests script it.
pub trait Measure {
    /// A fingerprint of the project's state: equal while nothing in it changed.
    fn repo(&mut self, project: &Path) -> u64;
    /// The transcript's line count now.
    fn transcript_lines(&mut self, path: &Path) -> u64;
}

/// Progress measured on disk: [`repo_fingerprint`], and transcripts counted incrementally
/// (only what was appended since the last count is read).
#[derive(Default)]
pub struct Disk {
    transcripts: HashMap<PathBuf, LineCounter>,
}

impl Measure for Disk {
    fn repo(&mut self, project: &Path) -> u64 {
        repo_fingerprint(project)
    }

    fn transcript_lines(&mut self, path: &Path) -> u64 {
        self.transcripts
            .entry(path.to_path_buf())
            .or_default()
            .update(path)
    }
}

/// The stall detector: one per host, fed every session's [`Sample`] at each monitor tick.
/// Pure: the time and the measurements are passed in.
pub struct Detector {
    config: StallConfig,
    tracks: HashMap<String, Track>,
}

impl Detector {
    /// A detector with `config`'s thresholds.
    pub fn new(config: StallConfig) -> Detector {
        Detector {
            config,
            tracks: HashMap::new(),
        }
    }

    /// Observes session `id` at `now`; returns the `evidence` when its quiet stretch has just
    /// passed the threshold (once per stretch). Measures the project through `measure` at
    /// most once per [`StallConfig::check_every`] per working session, and not before the
    /// first check of a stretch (on disk that runs `git` or walks the project, so call it
    /// outside any lock), the transcript at every look.
    pub fn observe(
        &mut self,
        id: &str,
        sample: &Sample,
        now: Instant,
        measure: &mut dyn Measure,
    ) -> Option<String> {
        if sample.status != Status::Working {
            self.tracks.remove(id);
            return None;
        }
        let transcript = sample.transcript.map(|t| measure.transcript_lines(t));
        let track = match self.tracks.get_mut(id) {
            Some(t) => t,
            None => {
                let t = Track {
                    working_since: now,
                    mark: now,
                    last_check: now,
                    transcript_at_mark: transcript.unwrap_or(0),
                    output_at_mark: sample.output_lines,
                    repo_at_mark: None,
                    fired: false,
                };
                self.tracks.insert(id.to_string(), t);
                return None;
            }
        };
        if now.duration_since(track.last_check) < self.config.check_every() {
            return None;
        }
        track.last_check = now;
        let repo = measure.repo(sample.project);
        // The first check only takes the baseline: a change before it is missed, which moves
        // the alarm by at most one check, as measuring at every check does anyway.
        let repo_moved = track.repo_at_mark.replace(repo).is_some_and(|r| r != repo);
        let grown = match transcript {
            Some(lines) => lines.saturating_sub(track.transcript_at_mark),
            None => sample.output_lines.saturating_sub(track.output_at_mark),
        };
        if repo_moved || grown >= self.config.lines {
            track.mark = now;
            track.transcript_at_mark = transcript.unwrap_or(0);
            track.output_at_mark = sample.output_lines;
            track.fired = false;
            return None;
        }
        if track.fired || now.duration_since(track.mark) < self.config.after {
            return None;
        }
        track.fired = true;
        let what = if transcript.is_some() {
            "transcript"
        } else {
            "output"
        };
        Some(format!(
            "working {}, no repo change, {what} +{grown} lines",
            human(now.duration_since(track.working_since))
        ))
    }

    /// Replaces the thresholds (the config file was read again); running stretches keep
    /// their marks.
    pub fn set_config(&mut self, config: StallConfig) {
        self.config = config;
    }

    /// Keeps only the sessions for which `keep(id)` holds (the ones still in the registry).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.tracks.retain(|id, _| keep(id));
    }
}

/// `42m`, `1h05m`, `45s`, `800ms`: a duration the way the evidence states it.
pub fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s == 0 {
        format!("{}ms", d.as_millis())
    } else if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m", s / 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// A hash of the project's state: in a git work tree, HEAD plus `git status --porcelain`
/// plus the mtime and size of every file it lists (so editing an already-modified file
/// counts); elsewhere the mtimes and sizes of up to [`WALK_LIMIT`] files (skipping `.git`,
/// `target` and `node_modules`).
pub fn repo_fingerprint(dir: &Path) -> u64 {
    let mut h = DefaultHasher::new();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| o.stdout)
    };
    if let Some(status) = git(&["status", "--porcelain=v1", "-z", "--untracked-files=all"]) {
        git(&["rev-parse", "HEAD"]).hash(&mut h);
        status.hash(&mut h);
        for entry in status.split(|&b| b == 0).filter(|e| e.len() > 3) {
            let path = dir.join(String::from_utf8_lossy(&entry[3..]).as_ref());
            stat(&path).hash(&mut h);
        }
        return h.finish();
    }
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            seen += 1;
            if seen > WALK_LIMIT {
                return h.finish();
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if !matches!(name, ".git" | "target" | "node_modules") && !p.is_symlink() {
                    stack.push(p);
                }
            } else {
                p.hash(&mut h);
                stat(&p).hash(&mut h);
            }
        }
    }
    h.finish()
}

fn stat(path: &Path) -> Option<(std::time::SystemTime, u64)> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(ms: u64) -> StallConfig {
        StallConfig {
            after: Duration::from_millis(ms),
            lines: 10,
        }
    }

    /// Measurements as the script sets them.
    #[derive(Default)]
    struct Scripted {
        repo: u64,
        transcript: u64,
        /// How often the project was measured.
        repo_looks: usize,
    }

    impl Measure for Scripted {
        fn repo(&mut self, _: &Path) -> u64 {
            self.repo_looks += 1;
            self.repo
        }

        fn transcript_lines(&mut self, _: &Path) -> u64 {
            self.transcript
        }
    }

    /// One look: at `ms`, the status, the output line count, the repo fingerprint and the
    /// transcript line count (`None`: no transcript), and the evidence expected.
    type Look = (u64, Status, u64, u64, Option<u64>, Option<&'static str>);

    #[test]
    fn scripted_working_stretches() {
        use Status::*;
        let fired = Some("working 1s, no repo change, output +3 lines");
        let cases: &[(&str, &[Look])] = &[
            (
                "fires once per quiet stretch",
                &[
                    (0, Working, 0, 0, None, None),
                    (900, Working, 3, 0, None, None),
                    (1300, Working, 3, 0, None, fired),
                    (2600, Working, 3, 0, None, None),
                ],
            ),
            (
                "sustained output re-arms; the next quiet stretch fires again",
                &[
                    (0, Working, 0, 0, None, None),
                    (1300, Working, 3, 0, None, fired),
                    (2900, Working, 40, 0, None, None),
                    (3500, Working, 40, 0, None, None),
                    (
                        4200,
                        Working,
                        41,
                        0,
                        None,
                        Some("working 4s, no repo change, output +1 lines"),
                    ),
                ],
            ),
            (
                "leaving working re-arms",
                &[
                    (0, Working, 0, 0, None, None),
                    (1300, Working, 3, 0, None, fired),
                    (1400, Done, 3, 0, None, None),
                    (1500, Working, 3, 0, None, None),
                    (2100, Working, 3, 0, None, None),
                    (
                        2800,
                        Working,
                        3,
                        0,
                        None,
                        Some("working 1s, no repo change, output +0 lines"),
                    ),
                ],
            ),
            (
                "a repo change is progress",
                &[
                    (0, Working, 0, 0, None, None),
                    (300, Working, 0, 0, None, None),
                    (900, Working, 0, 7, None, None),
                    (1300, Working, 0, 7, None, None),
                    (
                        2000,
                        Working,
                        0,
                        7,
                        None,
                        Some("working 2s, no repo change, output +0 lines"),
                    ),
                ],
            ),
            (
                "with a transcript, its growth counts and output does not",
                &[
                    (0, Working, 0, 0, Some(2), None),
                    (
                        1300,
                        Working,
                        500,
                        0,
                        Some(5),
                        Some("working 1s, no repo change, transcript +3 lines"),
                    ),
                    (1600, Working, 500, 0, Some(15), None),
                    (2000, Working, 500, 0, Some(15), None),
                ],
            ),
        ];
        for (name, looks) in cases {
            let mut d = Detector::new(config(1000));
            let mut m = Scripted::default();
            let t0 = Instant::now();
            for &(ms, status, output_lines, repo, transcript, expect) in looks.iter() {
                m.repo = repo;
                m.transcript = transcript.unwrap_or(0);
                let sample = Sample {
                    status,
                    project: Path::new("/p"),
                    transcript: transcript.map(|_| Path::new("/t.jsonl")),
                    output_lines,
                };
                let at = t0 + Duration::from_millis(ms);
                assert_eq!(
                    d.observe("a", &sample, at, &mut m).as_deref(),
                    expect,
                    "{name}, at {ms} ms"
                );
            }
        }
    }

    /// Measuring a project can walk thousands of files: a working stretch shorter than a
    /// check (a shell echoing a command, a log streaming for a second) never does, and a long
    /// one does once per check.
    #[test]
    fn the_project_is_measured_once_per_check_and_never_for_a_short_stretch() {
        let mut d = Detector::new(config(1000)); // A check every 250 ms.
        let mut m = Scripted::default();
        let t0 = Instant::now();
        let look = |d: &mut Detector, m: &mut Scripted, ms: u64, status| {
            let sample = Sample {
                status,
                project: Path::new("/p"),
                transcript: None,
                output_lines: 0,
            };
            d.observe("a", &sample, t0 + Duration::from_millis(ms), m)
        };
        for ms in (0..200).step_by(10) {
            look(&mut d, &mut m, ms, Status::Working);
        }
        look(&mut d, &mut m, 200, Status::Idle);
        assert_eq!(m.repo_looks, 0, "a 200 ms stretch");
        for ms in (300..1300).step_by(10) {
            look(&mut d, &mut m, ms, Status::Working);
        }
        assert_eq!(m.repo_looks, 3, "checks at 550, 800 and 1050 ms");
    }

    #[test]
    fn on_disk_a_new_file_moves_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let before = repo_fingerprint(dir.path());
        assert_eq!(repo_fingerprint(dir.path()), before);
        std::fs::write(dir.path().join("new.txt"), "x").unwrap();
        assert_ne!(repo_fingerprint(dir.path()), before);
    }

    #[test]
    fn on_disk_transcripts_are_counted_by_what_was_appended() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        let mut disk = Disk::default();
        std::fs::write(&t, "{}\n{}\n").unwrap();
        assert_eq!(disk.transcript_lines(&t), 2);
        std::fs::write(&t, "{}\n{}\n{}\n{}\n{}").unwrap();
        assert_eq!(disk.transcript_lines(&t), 4, "only complete lines");
        std::fs::write(&t, "{}\n").unwrap();
        assert_eq!(disk.transcript_lines(&t), 1, "rewritten: counted again");
    }

    #[test]
    fn durations_read_like_the_spec() {
        assert_eq!(human(Duration::from_secs(42 * 60 + 5)), "42m");
        assert_eq!(human(Duration::from_secs(3900)), "1h05m");
        assert_eq!(human(Duration::from_secs(45)), "45s");
        assert_eq!(human(Duration::from_millis(800)), "800ms");
    }
}
