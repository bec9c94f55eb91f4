//! The fixture agent (`tests/fixture/agent.rs`) behaves as the tests of termio and of the
//! `session` suite need: driven through the real `console2svg session` host (cases SC-02, SC-03,
//! SC-13 and SC-14 of shared/cases/sessions.md, the permission question, `/exit`, hooks, the
//! transcript, the title spinner) and in a raw PTY of our own (the OSC 7501 probe and reports).

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A private host for one test (its own runtime directory); stops every session on drop.
struct Host {
    dir: tempfile::TempDir,
}

impl Host {
    fn new() -> Host {
        Host {
            dir: common::tempdir(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn cmd(&self) -> assert_cmd::Command {
        let mut c = common::console2svg();
        c.env("CONSOLE2SVG_RUNTIME_DIR", self.path("rt"))
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "3")
            .current_dir(self.dir.path());
        c
    }

    /// Runs `session <args>`; returns the JSON document and the exit code.
    fn run(&self, args: &[&str]) -> (Value, i32) {
        let out = self.cmd().arg("session").args(args).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "JSON from session {args:?}: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (v, out.status.code().unwrap())
    }

    fn ok(&self, args: &[&str]) -> Value {
        let (v, code) = self.run(args);
        assert_eq!(code, 0, "session {args:?} failed: {v}");
        v
    }

    /// Starts the fixture agent in the test's directory with `env` and `flags`; the transcript
    /// goes to `<dir>/transcripts`, hooks come from `<dir>/claude/settings.json`.
    fn agent(&self, env: &[(&str, &str)], flags: &[&str]) -> String {
        let transcripts = self.path("transcripts");
        let claude = self.path("claude");
        let agent = common::fixture_agent_path();
        let mut args: Vec<String> = ["start", "--width", "100", "--height", "40", "--", "env"]
            .map(str::to_string)
            .to_vec();
        args.push(format!("FIXTURE_TRANSCRIPT_DIR={}", transcripts.display()));
        args.push(format!("CLAUDE_CONFIG_DIR={}", claude.display()));
        args.push(format!("HOME={}", self.dir.path().display()));
        for (k, v) in env {
            args.push(format!("{k}={v}"));
        }
        args.push(agent.display().to_string());
        args.extend(flags.iter().map(|f| f.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.ok(&args)["sessionId"].as_str().unwrap().to_string()
    }

    /// Writes `<dir>/claude/settings.json`.
    fn settings(&self, v: Value) {
        std::fs::create_dir_all(self.path("claude")).unwrap();
        std::fs::write(self.path("claude/settings.json"), v.to_string()).unwrap();
    }

    fn read(&self, id: &str) -> Value {
        self.ok(&["read", id])
    }

    fn text(&self, id: &str) -> String {
        self.read(id)["screen"]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits until `text` is on screen; panics with the screen when it does not come.
    fn wait(&self, id: &str, text: &str) {
        let (v, _) = self.run(&["wait", id, "--text", text, "--timeout", "15s"]);
        assert_eq!(
            v["result"].as_str(),
            Some("matched"),
            "waiting for {text:?}: {v}\nscreen:\n{}",
            self.text(id)
        );
    }

    /// Waits until the program has ended; returns the wait's reply.
    fn wait_exit(&self, id: &str) -> Value {
        let (v, _) = self.run(&["wait", id, "--text", "never-shown", "--timeout", "15s"]);
        assert_eq!(v["result"].as_str(), Some("session-ended"), "{v}");
        v
    }

    fn send(&self, id: &str, args: &[&str]) {
        let mut a = vec!["send", id];
        a.extend_from_slice(args);
        self.ok(&a);
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

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The JSON lines of a file (empty when it does not exist).
fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

/// A hook command appending its stdin (one JSON document) as a line to `file`.
fn record(file: &Path) -> String {
    format!("cat >> '{0}'; echo >> '{0}'", file.display())
}

fn hook(command: &str) -> Value {
    serde_json::json!([{"hooks": [{"type": "command", "command": command}]}])
}

/// Polls until `f` holds (files written by hook commands have no screen to wait on).
fn eventually(what: &str, f: impl Fn() -> bool) {
    let end = Instant::now() + Duration::from_secs(15);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sc02_paste_burst_turns_a_quick_enter_into_a_newline_and_a_later_enter_submits() {
    let h = Host::new();
    let id = h.agent(&[], &["--paste-burst", "--think-ms", "50"]);
    h.wait(&id, "[idle]");
    // Observed: `session send --text hello --keys Enter` writes the text and the CR as two
    // writes with no pause between them, so the CR lands well within 120 ms of the burst and
    // the Codex rule turns it into a newline: nothing is submitted.
    h.send(&id, &["--text", "hello", "--keys", "Enter"]);
    h.wait(&id, "NEWLINE:burst");
    let screen = h.text(&id);
    assert_eq!(count(&screen, "SUBMIT"), 0, "{screen}");
    assert!(
        screen.contains("❯ hello\n"),
        "hello sits in the composer:\n{screen}"
    );
    // Clear the composer (Ctrl-C), then submit with a separate, later write.
    h.send(&id, &["--keys", "Ctrl+C"]);
    h.send(&id, &["--text", "hello"]);
    h.wait(&id, "❯ hello");
    // The gap is what is under test: the CR must come ≥ 150 ms after the last text byte.
    std::thread::sleep(Duration::from_millis(200));
    h.send(&id, &["--keys", "Enter"]);
    h.wait(&id, "REPLY 1: olleh");
    let screen = h.text(&id);
    assert_eq!(count(&screen, "SUBMIT:hello"), 1, "{screen}");
    assert_eq!(count(&screen, "SUBMIT"), 1, "{screen}");
    assert_eq!(count(&screen, "NEWLINE:burst"), 1, "{screen}");

    // Without the rule the same single send submits at once, exactly once.
    let id = h.agent(&[], &["--think-ms", "50"]);
    h.wait(&id, "[idle]");
    h.send(&id, &["--text", "hello", "--keys", "Enter"]);
    h.wait(&id, "REPLY 1: olleh");
    let screen = h.text(&id);
    assert_eq!(count(&screen, "SUBMIT"), 1, "{screen}");
    assert_eq!(count(&screen, "SUBMIT:hello"), 1, "{screen}");
}

#[test]
fn sc03_bracketed_paste_is_one_submission() {
    let h = Host::new();
    // With the burst rule on too: pasted characters are no burst, the CR after the paste submits.
    let id = h.agent(&[], &["--paste-burst", "--think-ms", "50"]);
    h.wait(&id, "[idle]");
    assert_eq!(h.read(&id)["screen"]["modes"]["bracketedPaste"], true);
    let v = h.ok(&[
        "send",
        &id,
        "--paste",
        "line1\nline2\nline3",
        "--keys",
        "Enter",
    ]);
    assert_eq!(v["bracketedPaste"], true);
    h.wait(&id, "REPLY 1: 3enil 2enil 1enil");
    let screen = h.text(&id);
    assert_eq!(count(&screen, "SUBMIT(3 lines)"), 1, "{screen}");
    assert_eq!(count(&screen, "SUBMIT"), 1, "{screen}");
    let lines = json_lines(
        &h.dir
            .path()
            .join("transcripts")
            .join(format!("{}.jsonl", transcript_id(&h, &id))),
    );
    assert_eq!(lines[0]["message"]["content"], "line1\nline2\nline3");
}

/// The session id the fixture shows in its header.
fn transcript_id(h: &Host, id: &str) -> String {
    let screen = h.text(id);
    let header = screen.lines().next().unwrap();
    header.rsplit("session ").next().unwrap().trim().to_string()
}

#[test]
fn sc13_trust_dialog_accepts_1_and_exits_on_anything_else() {
    let h = Host::new();
    let started = h.path("started.json");
    h.settings(serde_json::json!({"hooks": {"SessionStart": hook(&record(&started))}}));
    let flags = ["--trust-dialog", "--report", "hooks", "--think-ms", "50"];

    let id = h.agent(&[], &flags);
    h.wait(&id, "Enter to confirm · Esc to cancel");
    let screen = h.text(&id);
    for line in [
        "Quick safety check: Is this a project you created or one you trust?",
        "❯ 1. Yes, I trust this folder",
        "  2. No, exit",
    ] {
        assert!(screen.lines().any(|l| l == line), "{line:?} in\n{screen}");
    }
    assert!(!screen.contains("[idle]"));
    assert!(
        !started.exists(),
        "no hooks run before the folder is trusted"
    );
    h.send(&id, &["--text", "1"]);
    h.wait(&id, "[idle]");
    let screen = h.text(&id);
    assert!(screen.lines().any(|l| l == "❯"), "{screen}");
    assert!(!screen.contains("Quick safety check"), "{screen}");
    eventually("SessionStart hook", || started.exists());
    h.send(&id, &["--text", "hi", "--keys", "Enter"]);
    h.wait(&id, "REPLY 1: ih");
    assert_eq!(count(&h.text(&id), "SUBMIT:hi"), 1);

    // Enter accepts as well.
    let id = h.agent(&[], &flags);
    h.wait(&id, "Enter to confirm");
    h.send(&id, &["--keys", "Enter"]);
    h.wait(&id, "[idle]");

    // `2`, Esc and a prompt typed into the dialog exit with status 0.
    for input in [
        &["--text", "2"][..],
        &["--keys", "Escape"],
        &["--text", "write hello.txt", "--keys", "Enter"],
    ] {
        let id = h.agent(&[], &flags);
        h.wait(&id, "Enter to confirm");
        h.send(&id, input);
        let v = h.wait_exit(&id);
        assert_eq!(v["exitCode"].as_i64(), Some(0), "{input:?}: {v}");
        let screen = h.text(&id);
        assert!(
            screen.contains("fixture-agent exited: folder not trusted"),
            "{input:?}: {screen}"
        );
        assert!(!screen.contains("SUBMIT"), "{screen}");
    }

    // A reworded dialog (for detection that must not depend on the wording).
    let id = h.agent(
        &[],
        &[
            "--trust-dialog",
            "--trust-question",
            "Do you trust the files in this folder?",
        ],
    );
    h.wait(&id, "Do you trust the files in this folder?");
    assert!(!h.text(&id).contains("Quick safety check"));
    h.send(&id, &["--text", "1"]);
    h.wait(&id, "[idle]");
}

#[test]
fn permission_question_allows_with_1_and_denies_with_no() {
    let h = Host::new();
    let events = h.path("events.jsonl");
    let rec = record(&events);
    h.settings(serde_json::json!({"hooks": {
        "UserPromptSubmit": hook(&rec),
        "PreToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": rec}]},
                       {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo wrong >> bash.txt"}]}],
        "PermissionRequest": [{"matcher": "*", "hooks": [{"type": "command", "command": rec}]}],
        "Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": rec}]}],
        "PostToolUse": hook(&rec),
        "Stop": hook(&rec),
    }}));
    let id = h.agent(&[], &["--report", "hooks,osc", "--think-ms", "50"]);
    h.wait(&id, "[idle]");
    // Our terminal emulator answers the OSC 7501 probe.
    assert!(h.text(&id).contains("osc: status reports on"));
    h.send(&id, &["--text", "please ask permission", "--keys", "Enter"]);
    h.wait(&id, "[needs-you] permission");
    let screen = h.text(&id);
    for line in ["Allow write to hello.txt?", "❯ 1. Yes", "  2. No"] {
        assert!(screen.lines().any(|l| l == line), "{line:?} in\n{screen}");
    }
    assert!(!screen.contains("REPLY"), "{screen}");
    h.send(&id, &["--text", "1", "--keys", "Enter"]);
    h.wait(&id, "REPLY 1: noissimrep ksa esaelp");
    h.wait(&id, "[done]");
    assert!(h.text(&id).contains("PERMISSION:allowed"));
    assert_eq!(
        std::fs::read_to_string(h.path("hello.txt")).unwrap(),
        "hello\n"
    );

    h.send(&id, &["--text", "ask permission again"]);
    h.wait(&id, "❯ ask permission again");
    h.send(&id, &["--keys", "Enter"]);
    h.wait(&id, "[needs-you] permission");
    h.send(&id, &["--text", "no", "--keys", "Enter"]);
    h.wait(&id, "REPLY 2: denied");
    h.wait(&id, "[done]");
    assert!(h.text(&id).contains("PERMISSION:denied"));

    eventually("the second Stop hook", || {
        json_lines(&events)
            .iter()
            .filter(|e| e["hook_event_name"] == "Stop")
            .count()
            == 2
    });
    let got = json_lines(&events);
    let names: Vec<&str> = got
        .iter()
        .map(|e| e["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "Notification",
            "PostToolUse",
            "Stop",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "Notification",
            "Stop",
        ]
    );
    assert_eq!(got[1]["tool_name"], "Write");
    assert_eq!(got[3]["notification_type"], "permission_prompt");
    assert_eq!(got[3]["message"], "Allow write to hello.txt?");
    assert_eq!(
        got[5]["last_assistant_message"],
        "REPLY 1: noissimrep ksa esaelp"
    );
    assert_eq!(got[10]["last_assistant_message"], "REPLY 2: denied");
    assert!(
        !h.path("bash.txt").exists(),
        "the Bash matcher does not match Write"
    );
}

#[test]
fn exit_command_returns_to_the_shell() {
    let h = Host::new();
    let agent = common::fixture_agent_path();
    let script = format!("'{}'; echo AGENT-GONE-$?; sleep 30", agent.display());
    let id = h.ok(&["start", "--", "sh", "-c", &script])["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    h.wait(&id, "[idle]");
    h.send(&id, &["--text", "/exit", "--keys", "Enter"]);
    h.wait(&id, "AGENT-GONE-0");
    assert!(h.text(&id).contains("fixture-agent exited: /exit"));
    assert_eq!(h.read(&id)["state"], "running", "the shell is still there");
}

#[test]
fn transcript_assistant_line_lands_after_the_stop_hook() {
    let h = Host::new();
    let sid = "3f1c2b7a-0d4e-4c5f-9a8b-1e2d3c4b5a69";
    let transcript = h.path(&format!("transcripts/{sid}.jsonl"));
    let counted = h.path("count.txt");
    let stop = h.path("stop.jsonl");
    let start = h.path("start.jsonl");
    let submit = h.path("submit.jsonl");
    let env_seen = h.path("env.txt");
    h.settings(serde_json::json!({"hooks": {
        "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": record(&start)}]}],
        "UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": record(&submit)},
            {"type": "command", "command": format!("printf %s \"$TERMIO_SESSION\" > '{}'", env_seen.display())},
            // A hanging hook is killed after its own timeout, and the turn goes on.
            {"type": "command", "command": "sleep 30", "timeout": 1},
        ]}],
        "Stop": [{"hooks": [
            {"type": "command", "command": format!("wc -l < '{}' > '{}'", transcript.display(), counted.display())},
            {"type": "command", "command": record(&stop)},
        ]}],
    }}));
    let id = h.agent(
        &[("TERMIO_SESSION", "t-123")],
        &[
            "--report",
            "hooks",
            "--session-id",
            sid,
            "--think-ms",
            "50",
            "--transcript-lag-ms",
            "400",
        ],
    );
    h.wait(&id, "[idle]");
    assert!(!transcript.exists(), "created at the first submit");
    let began = Instant::now();
    h.send(&id, &["--text", "go", "--keys", "Enter"]);
    h.wait(&id, "TRANSCRIPT:assistant 1");
    assert!(
        began.elapsed() >= Duration::from_millis(1000),
        "the hanging hook ran to its timeout"
    );
    assert_eq!(
        std::fs::read_to_string(&counted).unwrap().trim(),
        "1",
        "at Stop only the user line is in the transcript"
    );
    let lines = json_lines(&transcript);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "user");
    assert_eq!(lines[0]["message"]["role"], "user");
    assert_eq!(lines[0]["message"]["content"], "go");
    assert_eq!(lines[0]["sessionId"], sid);
    assert_eq!(lines[1]["type"], "assistant");
    assert_eq!(lines[1]["message"]["role"], "assistant");
    assert_eq!(
        lines[1]["message"]["content"],
        serde_json::json!([{"type": "text", "text": "REPLY 1: og"}])
    );
    assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);

    let cwd = std::fs::canonicalize(h.dir.path()).unwrap();
    let common_fields = |e: &Value, event: &str| {
        assert_eq!(e["hook_event_name"], event);
        assert_eq!(e["session_id"], sid);
        assert_eq!(e["transcript_path"], transcript.to_str().unwrap());
        assert_eq!(
            std::fs::canonicalize(e["cwd"].as_str().unwrap()).unwrap(),
            cwd
        );
    };
    let s = &json_lines(&start)[0];
    common_fields(s, "SessionStart");
    assert_eq!(s["source"], "startup");
    let u = &json_lines(&submit)[0];
    common_fields(u, "UserPromptSubmit");
    assert_eq!(u["prompt"], "go");
    let st = &json_lines(&stop)[0];
    common_fields(st, "Stop");
    assert_eq!(st["stop_hook_active"], false);
    assert_eq!(st["last_assistant_message"], "REPLY 1: og");
    assert_eq!(std::fs::read_to_string(&env_seen).unwrap(), "t-123");
}

#[test]
fn screen_mode_puts_a_spinner_in_the_title_while_working() {
    let h = Host::new();
    let id = h.agent(&[], &["--report", "screen"]);
    h.wait(&id, "[idle]");
    assert_eq!(h.read(&id)["screen"]["title"], "Fixture Agent");
    h.send(&id, &["--text", "sleep 3000", "--keys", "Enter"]);
    h.wait(&id, "[working]");
    assert_eq!(h.read(&id)["screen"]["title"], "⠋ Fixture Agent");
    h.wait(&id, "[done]");
    assert_eq!(h.read(&id)["screen"]["title"], "Fixture Agent");
    assert!(h.text(&id).contains("REPLY 1: 0003 peels"));
}

#[test]
fn input_during_boot_is_discarded() {
    let h = Host::new();
    let id = h.agent(&[], &["--boot-ms", "3000", "--think-ms", "50"]);
    h.wait(&id, "Starting…");
    h.send(&id, &["--text", "early", "--keys", "Enter"]);
    let sent = h.read(&id);
    assert!(
        sent["screen"]["text"]
            .as_str()
            .unwrap()
            .contains("Starting…"),
        "the send arrived during the boot"
    );
    h.wait(&id, "[idle]");
    h.send(&id, &["--text", "late", "--keys", "Enter"]);
    h.wait(&id, "REPLY 1: etal");
    let screen = h.text(&id);
    assert!(!screen.contains("early"), "{screen}");
    assert_eq!(count(&screen, "SUBMIT"), 1, "{screen}");
}

/// The fixture in a PTY of our own, its output bytes collected.
struct RawPty {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
    _dir: tempfile::TempDir,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl RawPty {
    fn spawn(flags: &[&str]) -> RawPty {
        use portable_pty::{CommandBuilder, PtySize};
        let pair = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(common::fixture_agent_path());
        cmd.args(flags);
        let dir = common::tempdir();
        cmd.cwd(dir.path());
        cmd.env("FIXTURE_TRANSCRIPT_DIR", dir.path());
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = output.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        RawPty {
            child,
            writer: pair.master.take_writer().unwrap(),
            output,
            _dir: dir,
            _master: pair.master,
        }
    }

    fn bytes(&self) -> Vec<u8> {
        self.output.lock().unwrap().clone()
    }

    fn has(&self, needle: &[u8]) -> bool {
        self.bytes().windows(needle.len()).any(|w| w == needle)
    }

    /// Offset of the first `needle` in the output.
    fn find(&self, needle: &[u8]) -> Option<usize> {
        self.bytes().windows(needle.len()).position(|w| w == needle)
    }

    fn wait_for(&self, needle: &[u8]) {
        let end = Instant::now() + Duration::from_secs(15);
        while !self.has(needle) {
            assert!(
                Instant::now() < end,
                "no {:?} in the output:\n{:?}",
                String::from_utf8_lossy(needle),
                String::from_utf8_lossy(&self.bytes())
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn type_bytes(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }
}

impl Drop for RawPty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const PROBE: &[u8] = b"\x1b]7501;?\x1b\\\x1b[c";
const ANSWER_7501: &[u8] = b"\x1b]7501;1\x1b\\";
const ANSWER_DA1: &[u8] = b"\x1b[?62;22c";

#[test]
fn osc_reports_follow_a_successful_probe_only() {
    use base64::Engine;
    // Answered 7501 first, then DA1 (as our emulator does): reports for every status.
    let mut p = RawPty::spawn(&["--report", "osc", "--think-ms", "50"]);
    p.wait_for(PROBE);
    p.type_bytes(&[ANSWER_7501, ANSWER_DA1].concat());
    p.wait_for(b"osc: status reports on");
    p.wait_for(b"\x1b]7501;state=idle\x1b\\");
    p.type_bytes(b"hi\r");
    p.wait_for(b"REPLY 1: ih");
    p.wait_for(b"\x1b]7501;state=done\x1b\\");
    let working = p.find(b"\x1b]7501;state=working\x1b\\").expect("working");
    let done = p.find(b"\x1b]7501;state=done\x1b\\").unwrap();
    assert!(working < done);
    p.type_bytes(b"ask permission\r");
    let msg = base64::engine::general_purpose::STANDARD.encode("Allow write to hello.txt?");
    p.wait_for(format!("\x1b]7501;state=blocked:kind=permission:msg={msg}\x1b\\").as_bytes());
    p.type_bytes(b"2");
    p.wait_for(b"REPLY 2: denied");

    // Only DA1 answered, or DA1 before 7501: no reports at all.
    for answer in [ANSWER_DA1.to_vec(), [ANSWER_DA1, ANSWER_7501].concat()] {
        let mut p = RawPty::spawn(&["--report", "osc", "--think-ms", "50"]);
        p.wait_for(PROBE);
        p.type_bytes(&answer);
        p.wait_for(b"osc: status reports off");
        p.type_bytes(b"hi\r");
        p.wait_for(b"REPLY 1: ih");
        p.wait_for(b"[done]");
        assert!(
            !p.has(b"\x1b]7501;state"),
            "no reports without the probe answer"
        );
    }

    // No answer at all: the probe gives up after about a second, still no reports.
    let mut p = RawPty::spawn(&["--report", "osc", "--think-ms", "50"]);
    p.wait_for(b"osc: status reports off");
    p.type_bytes(b"hi\r");
    p.wait_for(b"REPLY 1: ih");
    assert!(!p.has(b"\x1b]7501;state"));

    // Without the osc mode there is no probe.
    let mut p = RawPty::spawn(&["--think-ms", "50"]);
    p.wait_for(b"[idle]");
    p.type_bytes(b"hi\r");
    p.wait_for(b"REPLY 1: ih");
    assert!(!p.has(b"\x1b]7501"));
}

#[test]
fn esc_interrupts_without_stop_and_prompts_during_a_turn_are_queued() {
    let h = Host::new();
    let stops = h.path("stops.jsonl");
    h.settings(serde_json::json!({"hooks": {"Stop": hook(&record(&stops))}}));
    let id = h.agent(&[], &["--report", "hooks", "--think-ms", "50"]);
    h.wait(&id, "[idle]");
    h.send(&id, &["--text", "sleep 20000", "--keys", "Enter"]);
    h.wait(&id, "[working]");
    h.send(&id, &["--keys", "Escape"]);
    h.wait(&id, "INTERRUPTED 1");
    h.wait(&id, "[idle]");
    assert!(!h.text(&id).contains("REPLY 1"));

    h.send(&id, &["--text", "sleep 1000", "--keys", "Enter"]);
    h.wait(&id, "[working]");
    h.send(&id, &["--text", "second", "--keys", "Enter"]);
    h.wait(&id, "QUEUED:second");
    h.wait(&id, "REPLY 3: dnoces");
    let screen = h.text(&id);
    let reply2 = screen.find("REPLY 2: 0001 peels").expect("turn 2 replied");
    assert!(reply2 < screen.find("REPLY 3").unwrap(), "{screen}");
    eventually("two Stop hooks", || json_lines(&stops).len() == 2);
    let got = json_lines(&stops);
    assert_eq!(got[0]["last_assistant_message"], "REPLY 2: 0001 peels");
    assert_eq!(got[1]["last_assistant_message"], "REPLY 3: dnoces");
}

#[test]
fn codex_flavor_reads_hooks_json_and_runs_notify() {
    let h = Host::new();
    let codex = h.path("codex");
    std::fs::create_dir_all(&codex).unwrap();
    let events = h.path("events.jsonl");
    let hooks = serde_json::json!({"hooks": {
        "UserPromptSubmit": hook(&record(&events)),
        "Stop": hook(&record(&events)),
    }});
    std::fs::write(codex.join("hooks.json"), hooks.to_string()).unwrap();
    let notified = h.path("notify.json");
    let notify = serde_json::to_string(&[
        "sh".to_string(),
        "-c".to_string(),
        format!("printf %s \"$1\" > '{}'", notified.display()),
        "notify".to_string(),
    ])
    .unwrap();
    std::fs::write(
        codex.join("config.toml"),
        format!("model = \"o3\"\nnotify = {notify}\n"),
    )
    .unwrap();
    // Claude's settings are not read in this flavor.
    let claude_seen = h.path("claude.jsonl");
    h.settings(serde_json::json!({"hooks": {"Stop": hook(&record(&claude_seen))}}));

    let codex_home = codex.display().to_string();
    let id = h.agent(
        &[("CODEX_HOME", codex_home.as_str())],
        &[
            "--flavor",
            "codex",
            "--report",
            "hooks",
            "--paste-burst",
            "--think-ms",
            "50",
        ],
    );
    h.wait(&id, "[idle]");
    h.send(&id, &["--text", "hi", "--keys", "Enter"]);
    h.wait(&id, "NOTIFY (1)");
    let n: Value = serde_json::from_str(&std::fs::read_to_string(&notified).unwrap()).unwrap();
    assert_eq!(n["type"], "agent-turn-complete");
    assert_eq!(n["turn-id"], "turn-1");
    assert_eq!(n["input-messages"], serde_json::json!(["hi"]));
    assert_eq!(n["last-assistant-message"], "REPLY 1: ih");
    let got = json_lines(&events);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0]["hook_event_name"], "UserPromptSubmit");
    assert_eq!(got[0]["turn_id"], "turn-1");
    assert_eq!(got[1]["hook_event_name"], "Stop");
    assert_eq!(got[1]["thread-id"], Value::Null);
    assert_eq!(got[1]["session_id"], n["thread-id"]);
    assert!(!claude_seen.exists(), "Claude's settings are not Codex's");
}
