//! The `session` suite's test harness: a private host (its own runtime directory, short idle
//! limit) driven through the real `console2svg session` CLI.

use std::time::{Duration, Instant};

use serde_json::Value;

/// A private host: every command it runs shares one runtime directory, so they talk to the
/// same host; all sessions are stopped when it is dropped.
pub struct Host {
    pub dir: tempfile::TempDir,
    env: Vec<(&'static str, &'static str)>,
}

impl Default for Host {
    fn default() -> Host {
        Host::new()
    }
}

impl Host {
    pub fn new() -> Host {
        Host::with_env(&[])
    }

    /// A host whose processes get extra environment variables (idle limit, retention).
    pub fn with_env(env: &[(&'static str, &'static str)]) -> Host {
        Host {
            dir: super::tempdir(),
            env: env.to_vec(),
        }
    }

    /// The runtime directory (`CONSOLE2SVG_RUNTIME_DIR`).
    pub fn rt(&self) -> std::path::PathBuf {
        self.dir.path().join("rt")
    }

    /// The binary, set up for this host.
    pub fn cmd(&self) -> assert_cmd::Command {
        let mut c = super::console2svg();
        c.env("CONSOLE2SVG_RUNTIME_DIR", self.rt())
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .current_dir(self.dir.path());
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// The host's pid, from a raw `ping` on its socket.
    pub fn host_pid(&self) -> i32 {
        super::host_pid(&self.rt()).expect("the host answers ping")
    }

    /// Runs `session <args>`; returns the JSON document and the exit code.
    pub fn run(&self, args: &[&str]) -> (Value, i32) {
        let out = self.cmd().arg("session").args(args).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "JSON from session {args:?}: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (v, out.status.code().unwrap())
    }

    /// Runs and requires success.
    pub fn ok(&self, args: &[&str]) -> Value {
        let (v, code) = self.run(args);
        assert_eq!(code, 0, "session {args:?} failed: {v}");
        v
    }

    /// Runs and requires the error envelope with `code` (exit 1).
    pub fn fails(&self, args: &[&str], code: &str) -> Value {
        let (v, exit) = self.run(args);
        assert_eq!(exit, 1, "session {args:?} should fail: {v}");
        assert_eq!(v["error"]["code"], code, "session {args:?}: {v}");
        v
    }

    /// `session start <args>`; returns the session id.
    pub fn start(&self, args: &[&str]) -> String {
        let mut a = vec!["start"];
        a.extend_from_slice(args);
        self.ok(&a)["sessionId"].as_str().unwrap().to_string()
    }

    /// The session's screen text.
    pub fn text(&self, id: &str) -> String {
        self.ok(&["read", id])["screen"]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits (≤ 10 s) for `text` on the session's screen.
    pub fn wait(&self, id: &str, text: &str) -> Value {
        self.ok(&["wait", id, "--text", text, "--timeout", "10s"])
    }

    /// Kills the host with SIGKILL and waits (≤ 5 s) until it is gone.
    pub fn kill_host(&self) {
        let pid = self.host_pid();
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(pid).expect("a pid"),
            rustix::process::Signal::KILL,
        );
        let end = Instant::now() + Duration::from_secs(5);
        while super::host_pid(&self.rt()).is_some() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Gone, or a zombie where nobody reaps orphans (a PID namespace whose init is the test
        // runner, as in CI's container); the socket file stays behind, as after any crash.
        while is_running(pid as u32) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self
            .cmd()
            .args(["session", "stop", "--all", "--yes"])
            .output();
    }
}

/// Whether `pid` is a process that has not ended (it exists and is not a zombie).
pub fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|i| stat[i + 1..].split_whitespace().next() != Some("Z"))
    })
}

/// Pids of live (non-zombie) processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = stat
            .rfind(')')
            .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'));
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !zombie && cmdline.contains(marker) && pid != std::process::id() {
            out.push(pid);
        }
    }
    out
}
