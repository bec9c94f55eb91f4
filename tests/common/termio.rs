//! A termio test world: a private host (runtime dir), HOME, XDG dirs and project folders per
//! test, helpers to run the real `termio` binary and read its JSON, an agents file registering
//! the fixture agent, and process lookups for a session's programs. Stops every session and the
//! host on drop.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One test's world.
pub struct World {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl World {
    pub fn new() -> World {
        let dir = super::tempdir();
        for d in ["home", "state", "config", "rt", "transcripts"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        World {
            dir,
            env: Vec::new(),
        }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// A project folder `name` (created).
    pub fn folder(&self, name: &str) -> PathBuf {
        let p = self.root().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// Adds an environment variable for every command (and the host they start).
    pub fn with(mut self, k: &str, v: &str) -> World {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Where the fixture agent writes its transcripts (`FIXTURE_TRANSCRIPT_DIR`).
    pub fn transcripts(&self) -> PathBuf {
        self.root().join("transcripts")
    }

    /// Registers agents: writes `yaml` as the agents file (`TERMIO_AGENTS_FILE`), with
    /// `{fixture}`, `{termio}` and `{transcripts}` replaced; points the fixture's transcripts
    /// and Claude config dir into the world.
    pub fn with_agents(self, yaml: &str) -> World {
        let file = self.root().join("agents.yaml");
        std::fs::write(&file, self.expand(yaml)).unwrap();
        let transcripts = self.transcripts();
        let claude = self.root().join("claude");
        std::fs::create_dir_all(&claude).unwrap();
        self.with("TERMIO_AGENTS_FILE", file.to_str().unwrap())
            .with("FIXTURE_TRANSCRIPT_DIR", transcripts.to_str().unwrap())
            .with("CLAUDE_CONFIG_DIR", claude.to_str().unwrap())
    }

    /// Installs Claude-style hooks (in the world's `CLAUDE_CONFIG_DIR`) that run
    /// `termio agent report auto --agent <agent> --event <E> >/dev/null 2>&1 || true` for the
    /// events the fixture agent fires.
    pub fn with_hooks(self, agent: &str) -> World {
        let termio = termio_path();
        let mut hooks = serde_json::Map::new();
        for event in [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PostToolUse",
            "PermissionRequest",
            "Notification",
            "Stop",
        ] {
            let command = format!(
                "{} agent report auto --agent {agent} --event {event} >/dev/null 2>&1 || true",
                termio.display()
            );
            hooks.insert(
                event.into(),
                serde_json::json!([{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]),
            );
        }
        let settings = serde_json::json!({ "hooks": hooks });
        std::fs::write(
            self.root().join("claude/settings.json"),
            serde_json::to_string_pretty(&settings).unwrap(),
        )
        .unwrap();
        self
    }

    /// Installs Codex-style status reporting (in the world's `CODEX_HOME`): a
    /// `UserPromptSubmit` hook in `hooks.json` and `notify` in `config.toml` running
    /// `termio agent report done --agent <agent> --event agent-turn-complete <json>`.
    pub fn with_codex_hooks(self, agent: &str) -> World {
        let home = self.root().join("codex");
        std::fs::create_dir_all(&home).unwrap();
        let termio = termio_path();
        let command = format!(
            "{} agent report auto --agent {agent} --event UserPromptSubmit >/dev/null 2>&1 || true",
            termio.display()
        );
        let hooks = serde_json::json!({"hooks": {"UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": command}]}
        ]}});
        std::fs::write(home.join("hooks.json"), hooks.to_string()).unwrap();
        let notify = serde_json::json!([
            termio.to_str().unwrap(),
            "agent",
            "report",
            "done",
            "--agent",
            agent,
            "--event",
            "agent-turn-complete"
        ]);
        std::fs::write(home.join("config.toml"), format!("notify = {notify}\n")).unwrap();
        self.with("CODEX_HOME", home.to_str().unwrap())
    }

    fn expand(&self, s: &str) -> String {
        s.replace("{fixture}", super::fixture_agent_path().to_str().unwrap())
            .replace("{termio}", termio_path().to_str().unwrap())
            .replace("{transcripts}", self.transcripts().to_str().unwrap())
    }

    fn base(&self, mut c: std::process::Command, cwd: &Path) -> std::process::Command {
        let r = self.root();
        c.current_dir(cwd)
            .env("CONSOLE2SVG_RUNTIME_DIR", r.join("rt"))
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .env("HOME", r.join("home"))
            .env("XDG_STATE_HOME", r.join("state"))
            .env("XDG_CONFIG_HOME", r.join("config"))
            .env("SHELL", "bash")
            .env_remove("TERMIO_SESSION")
            .env_remove("TERMIO_PROJECT")
            .env_remove("TERMIO_AGENTS_FILE")
            .env_remove("TERMIO_CLI_TIMEOUT");
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// A `termio` command in `cwd` with the world's environment.
    pub fn termio(&self, cwd: &Path) -> std::process::Command {
        self.base(std::process::Command::new(termio_path()), cwd)
    }

    /// Runs `termio <args>` in `cwd` with extra `env`; returns its JSON document and exit code.
    pub fn run_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, i32) {
        let mut c = self.termio(cwd);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.args(args).output().unwrap();
        parse_output(args, &out)
    }

    /// `termio sessions <args> --json`; returns the document and the exit code.
    pub fn sessions(&self, cwd: &Path, args: &[&str]) -> (Value, i32) {
        self.sessions_env(cwd, args, &[])
    }

    /// [`World::sessions`] with extra environment variables.
    pub fn sessions_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (Value, i32) {
        let mut a = vec!["sessions"];
        a.extend_from_slice(args);
        a.push("--json");
        self.run_env(cwd, &a, env)
    }

    /// `termio sessions <args> --json`, required to exit 0.
    pub fn ok(&self, cwd: &Path, args: &[&str]) -> Value {
        let (v, code) = self.sessions(cwd, args);
        assert_eq!(code, 0, "termio sessions {args:?} failed: {v}");
        assert_eq!(v["ok"], true);
        assert_eq!(v["schema_version"], 1);
        v
    }

    /// `termio sessions <args> --json`, required to fail (exit 1, the error shape); returns
    /// the error code.
    pub fn err(&self, cwd: &Path, args: &[&str]) -> String {
        let (v, code) = self.sessions(cwd, args);
        assert_eq!(code, 1, "termio sessions {args:?} should fail: {v}");
        assert_error_shape(&v);
        v["error"].as_str().unwrap().to_string()
    }

    /// A `termio sessions <args> --json` started in the background (for killing or closing
    /// the session while it waits).
    pub fn background(&self, cwd: &Path, args: &[&str]) -> std::process::Child {
        let mut a = vec!["sessions"];
        a.extend_from_slice(args);
        a.push("--json");
        self.termio(cwd)
            .args(&a)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// The screen of a session.
    pub fn screen(&self, cwd: &Path, link: &str) -> String {
        self.ok(cwd, &["read", link])["screen"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits (≤ 15 s) until the screen satisfies `f`; returns it.
    pub fn screen_until(&self, cwd: &Path, link: &str, f: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + Duration::from_secs(15);
        loop {
            let s = self.screen(cwd, link);
            if f(&s) {
                return s;
            }
            assert!(Instant::now() < end, "screen never matched:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The session's `list` entry.
    pub fn entry(&self, cwd: &Path, link: &str) -> Value {
        let list = self.ok(cwd, &["list"]);
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["link"] == link)
            .cloned()
            .unwrap_or_else(|| panic!("{link} not listed: {list}"))
    }

    /// Waits (≤ 15 s) until the session's `list` entry satisfies `f`; returns it.
    pub fn entry_until(&self, cwd: &Path, link: &str, f: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + Duration::from_secs(15);
        loop {
            let e = self.entry(cwd, link);
            if f(&e) {
                return e;
            }
            assert!(Instant::now() < end, "list entry never matched: {e}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `termio <args>` in `cwd`; returns its JSON document and exit code.
    pub fn run(&self, cwd: &Path, args: &[&str]) -> (Value, i32) {
        self.run_env(cwd, args, &[])
    }

    /// [`World::err`] with extra environment variables.
    pub fn err_env(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
        let (v, code) = self.sessions_env(cwd, args, env);
        assert_eq!(code, 1, "termio sessions {args:?} should fail: {v}");
        assert_error_shape(&v);
        v["error"].as_str().unwrap().to_string()
    }

    /// A `console2svg` command in `cwd` with the world's environment (same host).
    pub fn console2svg(&self, cwd: &Path) -> std::process::Command {
        self.base(std::process::Command::new(console2svg_path()), cwd)
    }

    /// `run "<command>"`; returns the new session's link.
    pub fn start(&self, cwd: &Path, command: &str) -> String {
        self.ok(cwd, &["run", command])["target"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The session's status in `list`.
    pub fn status(&self, cwd: &Path, link: &str) -> String {
        self.entry(cwd, link)["status"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits (≤ 15 s) for a status.
    pub fn status_until(&self, cwd: &Path, link: &str, want: &str) {
        self.entry_until(cwd, link, |e| e["status"] == want);
    }

    /// The host's pid, from a raw `ping` on its socket.
    pub fn host_pid(&self) -> i32 {
        super::host_pid(&self.root().join("rt")).expect("the host answers ping")
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let root = self.root();
        let mut c = self.base(std::process::Command::new(console2svg_path()), &root);
        let _ = c.args(["session", "stop", "--all", "--yes"]).output();
        // The host itself: ask its pid, then end it.
        if let Some(pid) = super::host_pid(&root.join("rt")) {
            let _ = std::process::Command::new("kill")
                .arg(pid.to_string())
                .status();
        }
    }
}

/// The `termio` binary cargo built for the tests.
pub fn termio_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_termio"))
}

fn console2svg_path() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_console2svg"))
}

/// Parses a `termio --json` run's stdout.
pub fn parse_output(args: &[&str], out: &std::process::Output) -> (Value, i32) {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON from termio {args:?}: {e}: {} / {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap())
}

/// The contract's one error shape.
pub fn assert_error_shape(v: &Value) {
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["ok", "error", "message", "schema_version"], "{v}");
    assert_eq!(v["ok"], false);
    assert_eq!(v["schema_version"], 1);
    assert!(!v["message"].as_str().unwrap().is_empty());
}

/// The uuid of a `termio://session/<uuid>` link.
pub fn uuid(link: &str) -> &str {
    link.strip_prefix("termio://session/").unwrap()
}

/// Pids of the processes whose environment has `TERMIO_SESSION=<uuid>` and whose command line
/// contains `needle`.
pub fn session_pids(uuid: &str, needle: &str) -> Vec<i32> {
    let want = format!("TERMIO_SESSION={uuid}");
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let env = std::fs::read(e.path().join("environ")).unwrap_or_default();
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let has_env = env.split(|b| *b == 0).any(|kv| kv == want.as_bytes());
        if has_env && String::from_utf8_lossy(&cmd).contains(needle) {
            pids.push(pid);
        }
    }
    pids
}

/// Lines `cursor + 1 ..= cursor_end` of a wait reply's transcript.
pub fn transcript_range(reply: &Value) -> Vec<Value> {
    let path = reply["transcript"].as_str().expect("a transcript path");
    let from = reply["cursor"].as_u64().expect("cursor") as usize;
    let to = reply["cursor_end"].as_u64().expect("cursor_end") as usize;
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(from)
        .take(to.saturating_sub(from))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Rows of `screen` that start with `prefix`.
pub fn count_rows(screen: &str, prefix: &str) -> usize {
    screen.lines().filter(|l| l.starts_with(prefix)).count()
}

/// A running `termio sessions watch`: its stdout lines arrive on a channel.
pub struct Watch {
    /// The watch process.
    pub child: std::process::Child,
    /// Its stdout, line by line.
    pub lines: std::sync::mpsc::Receiver<String>,
}

impl Watch {
    /// Starts `termio sessions watch <args>` in `cwd`.
    pub fn start(w: &World, cwd: &Path, args: &[&str]) -> Watch {
        let mut c = w.termio(cwd);
        c.arg("sessions")
            .arg("watch")
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Watch { child, lines }
    }

    /// The next line as JSON (≤ 15 s).
    pub fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(15))
            .expect("a watch line within 15 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("watch line {line:?}: {e}"))
    }

    /// Lines until one satisfies `f` (≤ 15 s in all); returns it and the ones before it.
    pub fn until(&self, f: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let end = Instant::now() + Duration::from_secs(15);
        let mut before = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no matching watch line; saw {before:?}"));
            let v: Value = serde_json::from_str(&line).unwrap();
            if f(&v) {
                return (v, before);
            }
            before.push(v);
        }
    }

    /// The exit code (≤ 10 s).
    pub fn exit_code(&mut self) -> i32 {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().expect("exited, not killed");
            }
            assert!(Instant::now() < end, "watch did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends signal `name` (`INT`, `KILL`, …) to `pid`.
pub fn signal(pid: u32, name: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name} {pid}");
}
