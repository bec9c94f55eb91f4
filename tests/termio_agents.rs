//! termio agent sessions against a real host and real PTYs, with the fixture agent
//! (`tests/fixture/agent.rs`) registered as user agents through `TERMIO_AGENTS_FILE`: spawn,
//! `--wait` outcomes and transcript ranges, needs-you questions and answers, agent_gone and
//! session_closed, status from each source alone, and cases SC-02, SC-03, SC-13 and SC-14 of
//! shared/cases/sessions.md (shared/spec/termio-sessions.md; shared/notes/agents.md).

mod common;

use std::time::{Duration, Instant};

use common::termio::{count_rows, session_pids, transcript_range, uuid, Watch, World};
use serde_json::Value;

/// The fixture as user agents. `fix` uses every source (hooks, OSC 7501, title and screen
/// rules) with a transcript lag longer than the fixture's think (SC-14); the `fix-*` variants
/// each have one source only and no dialog detection.
const AGENTS: &str = r#"
agents:
  fix:
    command: '{fixture}'
    args: [--report, 'hooks,osc,screen', --think-ms, '400', --transcript-lag-ms, '600']
    hooks: claude
    ready: '(?m)^❯(\s|$)'
    title_rules: [{match: '^⠋', state: working}]
    screen_rules:
      - {match: '(?m)^\[working\]$', state: working}
      - {match: '(?m)^\[needs-you\]', state: needs-you}
      - {match: '(?m)^\[done\]$', state: done}
    transcript: '{transcripts}/*.jsonl'
  fix-slow:
    command: '{fixture}'
    args: [--report, 'hooks,osc', --think-ms, '60000']
    hooks: claude
    ready: '(?m)^❯(\s|$)'
    transcript: '{transcripts}/*.jsonl'
  fix-fast-screen:
    command: '{fixture}'
    args: [--think-ms, '0', --transcript-lag-ms, '0']
    ready: '(?m)^❯(\s|$)'
    dialogs: false
    screen_rules:
      - {match: '(?m)^\[working\]$', state: working}
      - {match: '(?m)^\[done\]$', state: done}
    transcript: '{transcripts}/*.jsonl'
  fix-lag-screen:
    command: '{fixture}'
    args: [--think-ms, '0', --transcript-lag-ms, '700']
    ready: '(?m)^❯(\s|$)'
    dialogs: false
    screen_rules:
      - {match: '(?m)^\[working\]$', state: working}
      - {match: '(?m)^\[done\]$', state: done}
    transcript: '{transcripts}/*.jsonl'
  fix-hooks:
    command: '{fixture}'
    args: [--report, hooks, --think-ms, '400']
    hooks: claude
    ready: '(?m)^❯(\s|$)'
    dialogs: false
  fix-osc:
    command: '{fixture}'
    args: [--report, osc, --think-ms, '400']
    ready: '(?m)^❯(\s|$)'
    dialogs: false
    transcript: '{transcripts}/*.jsonl'
  fix-screen:
    command: '{fixture}'
    args: [--think-ms, '400']
    ready: '(?m)^❯(\s|$)'
    dialogs: false
    screen_rules:
      - {match: '(?m)^\[working\]$', state: working}
      - {match: '(?m)^\[needs-you\]', state: needs-you}
      - {match: '(?m)^\[done\]$', state: done}
    transcript: '{transcripts}/*.jsonl'
  fix-title:
    command: '{fixture}'
    args: [--report, screen, --think-ms, '800']
    ready: '(?m)^❯(\s|$)'
    dialogs: false
    title_rules: [{match: '^⠋', state: working}]
    transcript: '{transcripts}/*.jsonl'
  fix-cx:
    command: '{fixture}'
    args: [--flavor, codex, --report, hooks, --paste-burst, --transcript-lag-ms, '600']
    hooks: codex
    ready: '(?m)^❯(\s|$)'
    quiet_ms: 200
    transcript: '{transcripts}/*.jsonl'
  fix-trust:
    command: '{fixture}'
    args: [--trust-dialog, --trust-question, 'Do you vouch for the code in this workspace?', --report, hooks, --think-ms, '300']
    hooks: claude
    ready: '(?m)^❯(\s|$)'
  fix-early:
    command: '{fixture}'
    args: [--boot-ms, '2500', --report, osc]
    ready: 'Starting'
    dialogs: false
  fix-codex:
    command: '{fixture}'
    args: [--paste-burst, --report, osc, --think-ms, '300']
    ready: '(?m)^❯(\s|$)'
    quiet_ms: 200
    transcript: '{transcripts}/*.jsonl'
"#;

fn world() -> World {
    World::new().with_agents(AGENTS).with_hooks("fix")
}

/// The text of a transcript line's message (string content or text parts).
fn text_of(line: &Value) -> String {
    let c = &line["message"]["content"];
    match c {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// `spawn "<prompt>" --agent <agent> --wait` (30 s), required to settle `done`; the reply.
fn spawn_done(w: &World, p: &std::path::Path, prompt: &str, agent: &str) -> Value {
    let v = w.ok(
        p,
        &[
            "spawn",
            prompt,
            "--agent",
            agent,
            "--wait",
            "--timeout",
            "30000",
        ],
    );
    assert_eq!(v["status"], "done", "{v}");
    v
}

/// Runs `f` on every text at once (a thread each); the texts with their replies, in order.
fn in_parallel(texts: &[&str], f: impl Fn(&str) -> Value + Sync) -> Vec<(String, Value)> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = texts
            .iter()
            .map(|&text| {
                let f = &f;
                scope.spawn(move || (text.to_string(), f(text)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// The `target` link of a spawn or send reply.
fn target(reply: &Value) -> String {
    reply["target"].as_str().unwrap().to_string()
}

/// Asserts a wait reply's range is exactly one assistant line with `reply`.
fn assert_range_is_reply(v: &Value, reply: &str) {
    let lines = transcript_range(v);
    assert_eq!(
        lines.len(),
        1,
        "one response line expected in {v}: {lines:?}"
    );
    assert_eq!(lines[0]["type"], "assistant", "{lines:?}");
    assert_eq!(text_of(&lines[0]), reply, "{lines:?}");
}

#[test]
fn spawn_wait_returns_exactly_the_turns_reply_and_send_wait_the_next() {
    let w = world();
    let p = w.folder("p");
    let t0 = Instant::now();
    let v = spawn_done(&w, &p, "first task", "fix");
    assert_eq!(v["timed_out"], false);
    assert_eq!(v["created"], true);
    // SC-14: the assistant line lands 600 ms after the Stop hook; the range still holds it.
    assert_range_is_reply(&v, "REPLY 1: ksat tsrif");
    let link = target(&v);

    let e = w.entry(&p, &link);
    assert_eq!(e["agent"], "fix");
    assert_eq!(e["status"], "done");
    assert_eq!(e["transcript"], v["transcript"]);
    assert_eq!(e["cursor_end"], v["cursor_end"]);
    assert!(e["reason"].as_str().unwrap().starts_with("hook "), "{e}");

    let v2 = w.ok(
        &p,
        &["send", &link, "second task", "--wait", "--timeout", "30000"],
    );
    assert_eq!(v2["status"], "done", "{v2}");
    assert_eq!(v2["transcript"], v["transcript"]);
    // The next range starts after the first one and the second prompt's own line.
    assert_eq!(v2["cursor"], v["cursor_end"].as_u64().unwrap() + 1, "{v2}");
    assert_range_is_reply(&v2, "REPLY 2: ksat dnoces");

    // Without --wait, send returns the transcript's line count as `cursor`.
    let lines_now = std::fs::read_to_string(v["transcript"].as_str().unwrap())
        .unwrap()
        .lines()
        .count() as u64;
    let sent = w.ok(&p, &["send", &link, "third task"]);
    assert_eq!(sent["cursor"], lines_now, "{sent}");
    assert_eq!(sent["transcript"], v["transcript"]);
    let screen = w.screen_until(&p, &link, |s| s.contains("REPLY 3:"));
    assert_eq!(count_rows(&screen, "SUBMIT:"), 3, "{screen}");
    assert!(t0.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_permission_question_is_needs_you_and_yes_continues_the_turn() {
    let w = world();
    let p = w.folder("p");
    let v = w.ok(
        &p,
        &["spawn", "please ask permission", "--agent", "fix", "--wait"],
    );
    assert_eq!(v["status"], "needs-you", "{v}");
    assert_eq!(v["timed_out"], false);
    assert!(
        v["prompt"]
            .as_str()
            .unwrap()
            .contains("Allow write to hello.txt?"),
        "{v}"
    );
    let link = target(&v);
    let e = w.entry(&p, &link);
    assert_eq!(e["status"], "needs-you");
    assert!(e["prompt"]
        .as_str()
        .unwrap()
        .contains("Allow write to hello.txt?"));

    let v2 = w.ok(&p, &["send", &link, "yes", "--wait", "--timeout", "30000"]);
    assert_eq!(v2["status"], "done", "{v2}");
    assert!(v2.get("prompt").is_none(), "{v2}");
    assert_range_is_reply(&v2, "REPLY 1: noissimrep ksa esaelp");
    assert_eq!(
        std::fs::read_to_string(p.join("hello.txt")).unwrap(),
        "hello\n"
    );
}

/// Starts a long turn with `--wait` in the background and returns it once the session is
/// `working`, with the session's link. The caller waits for the child ([`finish`]).
#[allow(clippy::zombie_processes)]
fn long_wait(w: &World, p: &std::path::Path) -> (std::process::Child, String) {
    let mut child = w.background(
        p,
        &["spawn", "sleep 8000 please", "--agent", "fix", "--wait"],
    );
    let end = Instant::now() + Duration::from_secs(15);
    loop {
        let list = w.ok(p, &["list"]);
        let working = list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["status"] == "working")
            .map(|s| s["link"].as_str().unwrap().to_string());
        if let Some(link) = working {
            return (child, link);
        }
        if Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("never working: {list}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn finish(child: std::process::Child) -> (Value, i32) {
    let out = child.wait_with_output().unwrap();
    common::termio::parse_output(&["spawn"], &out)
}

#[test]
fn killing_the_agent_mid_wait_is_agent_gone() {
    let w = world();
    let p = w.folder("p");
    let (child, link) = long_wait(&w, &p);
    let pids = session_pids(uuid(&link), "fixture-agent");
    assert_eq!(pids.len(), 1, "{pids:?}");
    std::process::Command::new("kill")
        .args(["-KILL", &pids[0].to_string()])
        .status()
        .unwrap();
    let t = Instant::now();
    let (v, code) = finish(child);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"], "agent_gone", "{v}");
    assert!(t.elapsed() < Duration::from_secs(4), "not fail-fast");
    // The shell stays; the status says the agent is gone.
    let e = w.entry(&p, &link);
    assert_eq!(e["status"], "exited", "{e}");
    assert!(e["reason"].as_str().unwrap().contains("agent"), "{e}");
}

#[test]
fn closing_mid_wait_is_session_closed() {
    let w = world();
    let p = w.folder("p");
    let (child, link) = long_wait(&w, &p);
    w.ok(&p, &["close", &link]);
    let (v, code) = finish(child);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"], "session_closed", "{v}");
}

/// One source alone reaches `working`, `needs-you` (with the question) and `done`, and the
/// status says which source it came from.
fn single_source(agent: &str, reason: &str) {
    let w = World::new().with_agents(AGENTS).with_hooks(agent);
    let p = w.folder("p");
    let link = w.ok(&p, &["spawn", "ask permission sleep 800", "--agent", agent])["target"]
        .as_str()
        .unwrap()
        .to_string();
    let working = w.entry_until(&p, &link, |e| e["status"] == "working");
    assert!(
        working["reason"].as_str().unwrap().starts_with(reason),
        "{working}"
    );
    let asking = w.entry_until(&p, &link, |e| e["status"] == "needs-you");
    assert!(
        asking["reason"].as_str().unwrap().starts_with(reason),
        "{asking}"
    );
    assert!(
        asking["prompt"]
            .as_str()
            .unwrap()
            .contains("Allow write to hello.txt?"),
        "{asking}"
    );
    let v = w.ok(&p, &["send", &link, "1", "--wait", "--timeout", "30000"]);
    assert_eq!(v["status"], "done", "{v}");
    let e = w.entry(&p, &link);
    assert!(e["reason"].as_str().unwrap().starts_with(reason), "{e}");
    assert_range_is_reply(&v, "REPLY 1: 008 peels noissimrep ksa");
}

#[test]
fn status_from_hooks_only() {
    single_source("fix-hooks", "hook ");
}

#[test]
fn status_from_osc_7501_only() {
    single_source("fix-osc", "osc 7501 ");
}

#[test]
fn status_from_screen_rules_only() {
    single_source("fix-screen", "screen rule ");
}

#[test]
fn status_from_title_rules_only() {
    let w = world();
    let p = w.folder("p");
    let link = w.ok(&p, &["spawn", "titled task", "--agent", "fix-title"])["target"]
        .as_str()
        .unwrap()
        .to_string();
    let working = w.entry_until(&p, &link, |e| e["status"] == "working");
    assert!(
        working["reason"]
            .as_str()
            .unwrap()
            .starts_with("title rule "),
        "{working}"
    );
    let done = w.entry_until(&p, &link, |e| e["status"] == "done");
    assert_eq!(done["reason"], "title no longer working", "{done}");
}

#[test]
fn hook_reports_adopt_a_plain_session_and_carry_the_transcript() {
    use std::io::Write;
    let w = world();
    let p = w.folder("p");
    let link = w.ok(&p, &["run", "sleep 30"])["target"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(w.entry(&p, &link)["agent"], "terminal");
    let transcript = w.transcripts().join("adopted.jsonl");
    let input = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "transcript_path": transcript,
        "session_id": "s",
    });
    let mut c = w.termio(&p);
    c.env("TERMIO_SESSION", uuid(&link))
        .args([
            "agent",
            "report",
            "auto",
            "--agent",
            "claude",
            "--event",
            "UserPromptSubmit",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let e = w.entry(&p, &link);
    assert_eq!(e["agent"], "claude", "{e}");
    assert_eq!(e["status"], "working", "{e}");
    assert_eq!(e["reason"], "hook UserPromptSubmit", "{e}");
    // The hook named a file the agent has not written yet: not shown until it exists.
    assert_eq!(e["transcript"], Value::Null, "{e}");
    std::fs::write(&transcript, "").unwrap();
    let e = w.entry(&p, &link);
    assert_eq!(e["transcript"], transcript.to_str().unwrap(), "{e}");
    // A Stop report (state given, no stdin JSON) moves it on.
    let out = w
        .termio(&p)
        .env("TERMIO_SESSION", uuid(&link))
        .args([
            "agent", "report", "done", "--agent", "claude", "--event", "Stop",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let e = w.entry(&p, &link);
    assert_eq!(
        (e["status"].as_str(), e["reason"].as_str()),
        (Some("done"), Some("hook Stop"))
    );
}

#[test]
fn a_trust_dialog_does_not_eat_the_prompt() {
    // SC-13, with the dialog reworded: detection keys on its shape, not its words.
    let w = world().with_hooks("fix-trust");
    let p = w.folder("p");
    let watch = Watch::start(&w, &p, &["--json", "--no-snapshot"]);
    let v = w.ok(
        &p,
        &[
            "spawn",
            "write hello.txt",
            "--agent",
            "fix-trust",
            "--wait",
            "--timeout",
            "20000",
        ],
    );
    assert_eq!(v["status"], "needs-you", "{v}");
    assert_eq!(
        v["prompt"], "Do you vouch for the code in this workspace?",
        "{v}"
    );
    let link = target(&v);
    // A watch stream reports the same needs-you, with the question.
    let (event, _) = watch.until(|e| e["link"] == link.as_str() && e["status"] == "needs-you");
    assert_eq!(
        event["prompt"], "Do you vouch for the code in this workspace?",
        "{event}"
    );
    // The fixture is still running its dialog: no prompt byte reached it.
    std::thread::sleep(Duration::from_millis(500));
    let screen = w.screen(&p, &link);
    assert!(screen.contains("Do you vouch"), "{screen}");
    assert!(!screen.contains("fixture-agent exited"), "{screen}");

    let v2 = w.ok(&p, &["send", &link, "1", "--wait", "--timeout", "30000"]);
    assert_eq!(v2["status"], "done", "{v2}");
    // The watch's done event carries the transcript and its end.
    let (done, _) = watch.until(|e| e["link"] == link.as_str() && e["status"] == "done");
    assert_eq!(done["transcript"], v2["transcript"], "{done}");
    assert_eq!(done["cursor_end"], v2["cursor_end"], "{done}");
    let screen = w.screen_until(&p, &link, |s| s.contains("REPLY 1:"));
    assert_eq!(count_rows(&screen, "SUBMIT:"), 1, "{screen}");
    assert_eq!(count_rows(&screen, "SUBMIT:write hello.txt"), 1, "{screen}");
    assert_range_is_reply(&v2, "REPLY 1: txt.olleh etirw");
}

#[test]
fn a_codex_style_paste_burst_prompt_submits_exactly_once() {
    // SC-02: the Return goes in its own write after the agent's quiet gap.
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "hello", "fix-codex");
    let link = target(&v);
    let v2 = w.ok(
        &p,
        &["send", &link, "hello", "--wait", "--timeout", "30000"],
    );
    assert_eq!(v2["status"], "done", "{v2}");
    let screen = w.screen(&p, &link);
    assert_eq!(count_rows(&screen, "SUBMIT:hello"), 2, "{screen}");
    assert_eq!(count_rows(&screen, "NEWLINE:burst"), 0, "{screen}");
    assert_range_is_reply(&v2, "REPLY 2: olleh");
}

#[test]
fn codex_hooks_and_notify_settle_a_turn_once_its_reply_is_in_the_transcript() {
    // Codex flavour: a UserPromptSubmit hook, then `notify` with the turn's JSON as an
    // argument (`last-assistant-message`), 600 ms before the reply reaches the transcript.
    let w = World::new().with_agents(AGENTS).with_codex_hooks("fix-cx");
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "codex task", "fix-cx");
    assert_range_is_reply(&v, "REPLY 1: ksat xedoc");
    let link = target(&v);
    let e = w.entry(&p, &link);
    assert_eq!(e["reason"], "hook agent-turn-complete", "{e}");
    let screen = w.screen(&p, &link);
    assert_eq!(count_rows(&screen, "SUBMIT:codex task"), 1, "{screen}");
    assert_eq!(count_rows(&screen, "NEWLINE:burst"), 0, "{screen}");
    assert_eq!(count_rows(&screen, "NOTIFY (1)"), 1, "{screen}");
}

#[test]
fn a_multi_line_prompt_submits_exactly_once() {
    // SC-03: pasted (bracketed), one submission.
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "line1\nline2\nline3", "fix");
    let link = target(&v);
    let v2 = w.ok(&p, &["send", &link, "a\nb", "--wait", "--timeout", "30000"]);
    assert_eq!(v2["status"], "done", "{v2}");
    let screen = w.screen(&p, &link);
    assert_eq!(count_rows(&screen, "SUBMIT(3 lines)"), 1, "{screen}");
    assert_eq!(count_rows(&screen, "SUBMIT(2 lines)"), 1, "{screen}");
    assert_eq!(count_rows(&screen, "SUBMIT"), 2, "{screen}");
    assert_range_is_reply(&v2, "REPLY 2: b a");
}

#[test]
fn spawned_sessions_know_their_caller_and_inherit_its_kind() {
    let w = world();
    let p = w.folder("p");
    let parent = w.ok(
        &p,
        &[
            "spawn",
            "parent task",
            "--agent",
            "fix-osc",
            "--wait",
            "--timeout",
            "30000",
        ],
    );
    let parent_link = target(&parent);
    // From inside the parent session, without --agent: the caller's own kind, with an envelope.
    let env = [("TERMIO_SESSION", uuid(&parent_link))];
    let (child, code) = w.sessions_env(
        &p,
        &["spawn", "child task", "--wait", "--timeout", "30000"],
        &env,
    );
    assert_eq!(code, 0, "{child}");
    assert_eq!(child["status"], "done", "{child}");
    let child_link = target(&child);
    assert_eq!(w.entry(&p, &child_link)["agent"], "fix-osc");
    let path = child["transcript"].as_str().unwrap();
    assert_ne!(Some(path), parent["transcript"].as_str());
    let first: Value = serde_json::from_str(
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let prompt = text_of(&first);
    assert!(
        prompt.contains(&format!("termio sessions send {parent_link}")),
        "{prompt}"
    );
    assert!(prompt.trim_end().ends_with("child task"), "{prompt}");
    // The range skips the prompt (envelope included): only the reply.
    let lines = transcript_range(&child);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["type"], "assistant");
    // A spawn from a plain shell gets no envelope.
    let parent_prompt: Value = serde_json::from_str(
        std::fs::read_to_string(parent["transcript"].as_str().unwrap())
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(text_of(&parent_prompt), "parent task");
}

#[test]
fn a_prompt_eaten_by_a_booting_agent_is_prompt_stalled() {
    // A readiness rule that holds too early: the prompt goes to an agent still booting, which
    // drops it. No status move follows, so the wait fails fast instead of burning its timeout.
    let w = world();
    let p = w.folder("p");
    let t = Instant::now();
    let args = [
        "spawn",
        "hello",
        "--agent",
        "fix-early",
        "--wait",
        "--timeout",
        "60000",
    ];
    let (v, code) = w.sessions(&p, &args);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"], "prompt_stalled", "{v}");
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    // The message names the session the spawn created (the error shape has no target).
    let link = w.ok(&p, &["list"])["sessions"][0]["link"].clone();
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains(link.as_str().unwrap()),
        "{v}"
    );
}

#[test]
fn agent_choice_errors_and_send_without_target() {
    let w = world();
    let p = w.folder("p");
    assert_eq!(
        w.err(&p, &["spawn", "x", "--agent", "no-such-agent"]),
        "bad_agent"
    );
    assert_eq!(w.err(&p, &["spawn", "x"]), "no_agent");
    assert_eq!(w.err(&p, &["spawn", "", "--agent", "fix"]), "no_text");
    // `send` with no target behaves like `spawn`.
    let v = w.ok(&p, &["send", "just a prompt", "--agent", "fix-osc"]);
    assert_eq!(v["created"], true);
    assert_eq!(v["queued"], true);
    let link = target(&v);
    let screen = w.screen_until(&p, &link, |s| s.contains("REPLY 1:"));
    assert_eq!(count_rows(&screen, "SUBMIT:just a prompt"), 1, "{screen}");
    // `answer`, the deprecated alias of `send`, takes an agent session.
    w.ok(&p, &["answer", &link, "second"]);
    let screen = w.screen_until(&p, &link, |s| s.contains("REPLY 2:"));
    assert_eq!(count_rows(&screen, "SUBMIT:second"), 1, "{screen}");
}

#[test]
fn agent_report_never_blocks_and_never_fails() {
    let w = world();
    let p = w.folder("p");
    for env in [
        vec![],
        vec![("TERMIO_SESSION", "00000000-0000-4000-8000-000000000000")],
    ] {
        let t = Instant::now();
        let mut c = w.termio(&p);
        for (k, v) in &env {
            c.env(k, v);
        }
        let out = c
            .args([
                "agent", "report", "auto", "--agent", "claude", "--event", "Stop",
            ])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
        assert!(t.elapsed() < Duration::from_secs(3));
    }
}

/// A supervisor's view (`watch --json`) of three fixture agents: one finishes (`done` with its
/// transcript and `cursor_end`), one asks (`needs-you` with the question, then `done` once
/// answered), one thinks for a minute with no repo change and no transcript growth (one
/// `stalled` event with evidence under the short configured threshold, its status still
/// `working`). The supervisor reads both results from the transcripts.
#[test]
fn watch_supervises_three_agents_with_a_stall_alarm() {
    let w = world();
    let config = w.root().join("config/termio");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.yaml"),
        "stall_after: 2s\nstall_lines: 10\n",
    )
    .unwrap();
    let p = w.folder("p");
    w.ok(&p, &["list"]); // The host is up before the watch subscribes.
    let watch = Watch::start(&w, &p, &["--json", "--state", "done,needs-you,stalled"]);
    std::thread::sleep(Duration::from_millis(300));
    let quick = w.ok(&p, &["spawn", "first task", "--agent", "fix"])["target"]
        .as_str()
        .unwrap()
        .to_string();
    let asking = w.ok(&p, &["spawn", "please ask permission", "--agent", "fix"])["target"]
        .as_str()
        .unwrap()
        .to_string();
    let slow = w.ok(&p, &["spawn", "think hard", "--agent", "fix-slow"])["target"]
        .as_str()
        .unwrap()
        .to_string();

    // Collect until each of the three outcomes was seen (≤ 30 s).
    let mut done = None;
    let mut asked = None;
    let mut stalled = Vec::new();
    let end = Instant::now() + Duration::from_secs(30);
    while done.is_none() || asked.is_none() || stalled.is_empty() {
        let left = end.saturating_duration_since(Instant::now());
        let line = watch.lines.recv_timeout(left).unwrap_or_else(|_| {
            panic!("watch missed an outcome: done {done:?} asked {asked:?} stalled {stalled:?}")
        });
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(v["snapshot"], true, "no sessions before the watch: {v}");
        match (v["link"].as_str(), v["status"].as_str()) {
            (Some(l), Some("done")) if l == quick => done = Some(v),
            (Some(l), Some("needs-you")) if l == asking => asked = Some(v),
            (Some(l), Some("stalled")) => {
                assert_eq!(l, slow, "only the thinking agent stalls: {v}");
                stalled.push(v)
            }
            (_, Some("done" | "needs-you")) => {}
            _ if v.get("heartbeat").is_some() => {}
            _ => panic!("unexpected watch line {v}"),
        }
    }
    let done = done.unwrap();
    let cursor_end = done["cursor_end"]
        .as_u64()
        .expect("done carries cursor_end");
    let transcript = done["transcript"]
        .as_str()
        .expect("done carries transcript");
    let lines: Vec<Value> = std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .take(cursor_end as usize)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().expect("lines up to cursor_end");
    assert_eq!(last["type"], "assistant", "{last}");
    assert_eq!(text_of(last), "REPLY 1: ksat tsrif");
    let asked = asked.unwrap();
    assert!(
        asked["prompt"]
            .as_str()
            .unwrap()
            .contains("Allow write to hello.txt?"),
        "{asked}"
    );
    assert!(asked.get("transcript").is_none(), "{asked}");
    let evidence = stalled[0]["evidence"].as_str().unwrap();
    let shape =
        regex::Regex::new(r"^working \d+s, no repo change, (transcript|output) \+\d lines$")
            .unwrap();
    assert!(shape.is_match(evidence), "{evidence}");
    assert_eq!(
        w.entry(&p, &slow)["status"],
        "working",
        "the alarm leaves the status"
    );

    // Answer the question: the watch reports the asking agent done.
    w.ok(&p, &["send", &asking, "yes"]);
    let (answered, _) = watch.until(|v| v["link"] == asking.as_str() && v["status"] == "done");
    assert!(answered["cursor_end"].as_u64().is_some(), "{answered}");
    assert!(
        stalled.len() == 1,
        "one alarm per quiet stretch: {stalled:?}"
    );
}

/// A send to an agent session whose agent has exited types nothing (the shell would run it as
/// a command): `not_live`.
#[test]
fn a_send_after_the_agent_exited_types_nothing() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix");
    let link = target(&v);
    assert_eq!(w.err(&p, &["send", &link, "/exit", "--wait"]), "agent_gone");
    w.entry_until(&p, &link, |e| e["status"] == "exited");
    let marker = p.join("pwned.txt");
    let cmd = format!("echo PWNED > {}", marker.display());
    assert_eq!(w.err(&p, &["send", &link, &cmd]), "not_live");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!marker.exists(), "the shell ran the prompt");
}

/// Agents of one kind without hooks, spawned at once, each find their own transcript (the
/// file holding the prompt they delivered), so each result is its own.
#[test]
fn agents_of_one_kind_spawned_together_keep_their_own_transcripts() {
    let w = world();
    let p = w.folder("p");
    // Distinct prompts, a prompt that ends another ("fix bug" / "please fix bug"), and the
    // same prompt twice: each session still gets a file of its own.
    let replies = in_parallel(
        &["alpha task", "fix bug", "please fix bug", "same", "same"],
        |prompt| spawn_done(&w, &p, prompt, "fix-osc"),
    );
    let mut files: Vec<&str> = replies
        .iter()
        .map(|(_, v)| v["transcript"].as_str().unwrap())
        .collect();
    files.sort();
    files.dedup();
    assert_eq!(files.len(), 5, "{replies:?}");
    for (prompt, v) in &replies {
        let reversed: String = prompt.chars().rev().collect();
        assert_range_is_reply(v, &format!("REPLY 1: {reversed}"));
    }
}

/// A prompt sent while the agent is mid-turn is queued by the agent: its wait settles only
/// after its own turn, and its range is its own reply (not the busy turn's).
#[test]
fn a_prompt_queued_behind_a_running_turn_waits_for_its_own_reply() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix");
    let link = target(&v);
    w.ok(&p, &["send", &link, "busy sleep 2500"]);
    w.entry_until(&p, &link, |e| e["status"] == "working");
    let v = w.ok(
        &p,
        &["send", &link, "my question", "--wait", "--timeout", "30000"],
    );
    assert_eq!(v["status"], "done", "{v}");
    assert_eq!(v["timed_out"], false);
    assert_range_is_reply(&v, "REPLY 3: noitseuq ym");
}

/// A turn faster than the status sampling (screen rules only, no think, no lag) still counts:
/// its transcript lines are its effect, and the wait settles on them.
#[test]
fn a_turn_faster_than_sampling_settles() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "quick", "fix-fast-screen");
    let link = target(&v);
    for (n, text) in [(2, "again one"), (3, "again two")] {
        let v = w.ok(&p, &["send", &link, text, "--wait", "--timeout", "30000"]);
        assert_eq!(v["status"], "done", "{v}");
        let reversed: String = text.chars().rev().collect();
        assert_range_is_reply(&v, &format!("REPLY {n}: {reversed}"));
    }
}

/// Questions answered faster than the host samples still reach `watch`: one `needs-you` line
/// (with the question) per question, each followed by the turn's `done`.
#[test]
fn watch_reports_every_question_even_when_answered_at_once() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix");
    let link = target(&v);
    let watch = Watch::start(&w, &p, &["--json", "--no-snapshot"]);
    std::thread::sleep(Duration::from_millis(300));
    for i in 1..=3 {
        let asked = w.ok(
            &p,
            &["send", &link, &format!("ask permission {i}"), "--wait"],
        );
        assert_eq!(asked["status"], "needs-you", "{asked}");
        // Where the response will start, though the turn has not settled: right after the
        // turn's own prompt line.
        let cursor = asked["cursor"].as_u64().expect("cursor") as usize;
        let text = std::fs::read_to_string(asked["transcript"].as_str().unwrap()).unwrap();
        let own: Value = serde_json::from_str(text.lines().nth(cursor - 1).unwrap()).unwrap();
        assert_eq!(own["type"], "user", "{own}");
        assert!(
            text_of(&own).contains(&format!("ask permission {i}")),
            "{own}"
        );
        assert!(asked.get("cursor_end").is_none(), "{asked}");
        let answered = w.ok(&p, &["send", &link, "1", "--wait"]);
        assert_eq!(answered["status"], "done", "{answered}");
    }
    for i in 1..=3 {
        let (q, before) = watch.until(|e| e["link"] == link.as_str() && e["status"] == "needs-you");
        assert!(
            q["prompt"]
                .as_str()
                .unwrap()
                .contains("Allow write to hello.txt?"),
            "{q}"
        );
        if i > 1 {
            assert!(
                before.iter().any(|e| e["status"] == "done"),
                "a done between questions: {before:?}"
            );
        }
    }
}

/// Three `send --wait` at once to one agent: the agent queues them; each wait settles `done`
/// on its own reply.
#[test]
fn simultaneous_sends_each_settle_on_their_own_reply() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix");
    let link = target(&v);
    let replies = in_parallel(&["tri one", "tri two", "tri three"], |text| {
        w.ok(&p, &["send", &link, text, "--wait", "--timeout", "30000"])
    });
    for (text, v) in &replies {
        assert_eq!(v["status"], "done", "{text}: {v}");
        let reversed: String = text.chars().rev().collect();
        let lines = transcript_range(v);
        assert!(
            lines.iter().any(|l| text_of(l).ends_with(&reversed)),
            "{text}: {v} {lines:?}"
        );
        assert!(
            lines.iter().all(|l| l["type"] == "assistant"),
            "{text}: only its reply: {lines:?}"
        );
    }
}

/// A late transcript line of the previous turn is not the next turn's effect: the wait
/// settles on the next turn's own reply.
#[test]
fn a_late_line_of_the_previous_turn_is_not_the_next_turns_reply() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix-lag-screen");
    let link = target(&v);
    w.ok(&p, &["send", &link, "pre"]);
    w.screen_until(&p, &link, |s| s.contains("REPLY 2:"));
    let v = w.ok(&p, &["send", &link, "post", "--wait", "--timeout", "30000"]);
    assert_eq!(v["status"], "done", "{v}");
    assert_range_is_reply(&v, "REPLY 3: tsop");
}

/// Blank (whitespace-only) text to an agent is `no_text`; an empty text stays a bare Return.
#[test]
fn blank_text_to_an_agent_is_no_text() {
    let w = world();
    let p = w.folder("p");
    let v = spawn_done(&w, &p, "warm up", "fix");
    let link = target(&v);
    assert_eq!(w.err(&p, &["send", &link, "   "]), "no_text");
    assert_eq!(w.err(&p, &["send", &link, " \n \t"]), "no_text");
}
