//! `termio sessions` against a real host (private runtime directory, HOME and XDG directories
//! per test) driving real shells: projects and isolation, links, every verb, status, `--wait`,
//! every error code from a real trigger, and `TERMIO_SESSION` resolution
//! (shared/spec/termio-sessions.md, case SC-01 of shared/cases/sessions.md).

mod common;

use std::time::{Duration, Instant};

use common::termio::{signal, uuid, Watch, World};
use serde_json::Value;

fn is_uuid_v4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && s.chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_uppercase())
        && parts[2].starts_with('4')
        && "89ab".contains(&parts[3][..1])
}

/// Lines of `screen` equal to `line` (right-trimmed rows).
fn count_lines(screen: &str, line: &str) -> usize {
    screen.lines().filter(|l| l.trim_end() == line).count()
}

#[test]
fn projects_are_isolated_by_link_id_prefix_and_title() {
    let w = World::new();
    let a = w.folder("a");
    let b = w.folder("b");
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&b)
        .status()
        .is_ok_and(|s| s.success());
    if !git {
        std::fs::create_dir_all(b.join(".git")).unwrap();
    }
    let b_sub = b.join("src/deep");
    std::fs::create_dir_all(&b_sub).unwrap();

    let la = w.start(&a, "echo in-a");
    // From a subfolder of the git repo: the project is the repo's top level.
    let lb = w.start(&b_sub, "echo in-b");
    let list_a = w.ok(&a, &["list"]);
    let list_b = w.ok(&b, &["list"]);
    assert_eq!(list_a["project"], a.to_str().unwrap());
    assert_eq!(list_b["project"], b.to_str().unwrap());
    let links = |l: &Value| -> Vec<String> {
        l["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["link"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(links(&list_a), [la.as_str()]);
    assert_eq!(links(&list_b), [lb.as_str()]);
    w.screen_until(&a, &la, |s| count_lines(s, "in-a") == 1);

    // B cannot see or drive A's session, however it is named.
    let id_a = &uuid(&la)[..8];
    for target in [la.as_str(), uuid(&la), id_a, &id_a[..5], "echo in-a"] {
        assert_eq!(w.err(&b, &["read", target]), "not_found", "{target}");
        assert_eq!(w.err(&b, &["send", target, "x"]), "not_found", "{target}");
        assert_eq!(w.err(&b, &["close", target]), "not_found", "{target}");
    }
    // And A reaches its own by each form.
    for target in [la.as_str(), uuid(&la), id_a, &id_a[..5], "echo in-a"] {
        assert_eq!(w.ok(&a, &["read", target])["target"], la.as_str());
    }
    assert_eq!(w.ok(&b_sub, &["read", "echo in-b"])["target"], lb.as_str());
}

#[test]
fn registered_projects_claim_their_subfolders() {
    let w = World::new();
    let a = w.folder("a");
    let sub = w.folder("a/sub");
    assert_eq!(w.ok(&sub, &["list"])["project"], sub.to_str().unwrap());
    let la = w.start(&a, "echo top");

    let (v, code) = w.run(&sub, &["--json", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["project"], a.to_str().unwrap());
    assert_eq!(v["added"], true);
    let (again, _) = w.run(&a, &["--json"]);
    assert_eq!(again["added"], false);
    let registry = w.root().join("state/termio/projects.json");
    let saved: Value = serde_json::from_slice(&std::fs::read(registry).unwrap()).unwrap();
    assert_eq!(saved["projects"][0]["path"], a.to_str().unwrap());

    let list = w.ok(&sub, &["list"]);
    assert_eq!(list["project"], a.to_str().unwrap());
    assert_eq!(list["sessions"][0]["link"], la.as_str());
}

#[test]
fn run_then_read_shows_the_output() {
    let w = World::new();
    let p = w.folder("p");
    let reply = w.ok(&p, &["run", "echo hello"]);
    let keys: Vec<&str> = reply
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "ok",
            "target",
            "title",
            "created",
            "queued",
            "schema_version"
        ]
    );
    let link = reply["target"].as_str().unwrap();
    assert!(is_uuid_v4(uuid(link)), "{link}");
    assert_eq!(reply["title"], "echo hello");
    assert_eq!(reply["created"], true);
    assert_eq!(reply["queued"], true);

    let screen = w.screen_until(&p, link, |s| count_lines(s, "hello") == 1);
    assert!(screen.lines().all(|l| l == l.trim_end()), "right-trimmed");
    assert!(!screen.ends_with('\n'), "no trailing blank rows");
    let read = w.ok(&p, &["read", link, "--lines", "1"]);
    assert_eq!(read["target"], link);
    assert_eq!(read["title"], "echo hello");
    assert_eq!(read["screen"].as_str().unwrap().lines().count(), 1);
    assert_eq!(
        read["screen"].as_str().unwrap(),
        screen.lines().last().unwrap()
    );
    // Readable form: the screen itself.
    let out = w
        .termio(&p)
        .args(["sessions", "read", link])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), screen);
}

#[test]
fn send_types_text_then_return_and_keys_replace_it() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "cat");
    w.status_until(&p, &link, "working");
    let sent = w.ok(&p, &["send", &link, "ping"]);
    let keys: Vec<&str> = sent
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["ok", "target", "title", "schema_version"]);
    // Echoed by the terminal, then written back by cat.
    w.screen_until(&p, &link, |s| count_lines(s, "ping") == 2);

    w.ok(&p, &["send", &link, "abc", "--no-enter"]);
    w.screen_until(&p, &link, |s| s.lines().last() == Some("abc"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count_lines(&w.screen(&p, &link), "abc"), 1, "no Return yet");
    w.ok(&p, &["send", &link, "", "--key", "Enter"]);
    w.screen_until(&p, &link, |s| count_lines(s, "abc") == 2);

    // Keys replace the implicit Return: "hi" and Return as two keys.
    w.ok(
        &p,
        &["send", &link, "--key", "h", "--key", "i", "--key", "Enter"],
    );
    w.screen_until(&p, &link, |s| count_lines(s, "hi") == 2);
    // Ctrl+C ends cat: back at the prompt, done.
    w.ok(&p, &["send", &link, "--key", "Ctrl+C"]);
    w.status_until(&p, &link, "done");
    // `answer`, the deprecated alias, is for agent sessions only: a plain terminal refuses it
    // and nothing is typed.
    assert_eq!(
        w.err(&p, &["answer", &link, "echo via-answer"]),
        "wrong_agent"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(!w.screen(&p, &link).contains("via-answer"));
}

#[test]
fn list_shape_and_close() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "echo listed");
    let list = w.ok(&p, &["list"]);
    let keys: Vec<&str> = list
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["ok", "project", "sessions", "schema_version"]);
    assert_eq!(list["project"], p.to_str().unwrap());
    let s = &list["sessions"][0];
    let fields: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    // transcript (plain terminals have none) is omitted, never "" or null.
    assert_eq!(
        fields,
        [
            "link",
            "id",
            "title",
            "agent",
            "status",
            "description",
            "cwd"
        ]
    );
    assert_eq!(s["link"], link.as_str());
    assert_eq!(s["id"], &uuid(&link)[..8]);
    assert_eq!(s["title"], "echo listed");
    assert_eq!(s["agent"], "terminal");
    assert!(["idle", "working", "done"].contains(&s["status"].as_str().unwrap()));
    assert_eq!(s["description"], "echo listed");
    assert_eq!(s["cwd"], p.to_str().unwrap());
    for v in s.as_object().unwrap().values() {
        assert!(!v.is_null() && v != "", "{s}");
    }
    // Readable list.
    let out = w.termio(&p).args(["sessions", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&uuid(&link)[..8]) && text.contains("echo listed"),
        "{text}"
    );

    let closed = w.ok(&p, &["close", &link]);
    assert_eq!(closed["closed"], serde_json::json!([link]));
    assert_eq!(closed["title"], "echo listed");
    assert_eq!(w.ok(&p, &["list"])["sessions"], serde_json::json!([]));
    assert_eq!(w.err(&p, &["close", &link]), "not_found");

    // Several at once; an unknown one closes none.
    let one = w.start(&p, "echo one");
    let two = w.start(&p, "echo two");
    assert_eq!(w.err(&p, &["close", &one, "nonesuch"]), "not_found");
    assert_eq!(w.ok(&p, &["list"])["sessions"].as_array().unwrap().len(), 2);
    let closed = w.ok(&p, &["close", &one, &two]);
    assert_eq!(closed["closed"], serde_json::json!([one, two]));
    assert_eq!(closed["title"], "echo one, echo two");
}

#[test]
fn status_goes_idle_working_done() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "sleep 1");
    let mut seen: Vec<String> = Vec::new();
    let end = Instant::now() + Duration::from_secs(15);
    while seen.last().map(String::as_str) != Some("done") && Instant::now() < end {
        let s = w.status(&p, &link);
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(seen, ["idle", "working", "done"]);
    // An exited shell.
    w.ok(&p, &["send", &link, "exit"]);
    w.status_until(&p, &link, "exited");
}

#[test]
fn wait_settles_after_the_output() {
    let w = World::new();
    let p = w.folder("p");
    let (v, code) = w.run(&p, &["sessions", "run", "echo first", "--wait", "--json"]);
    assert_eq!(code, 0, "{v}");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "ok",
            "target",
            "title",
            "status",
            "timed_out",
            "created",
            "schema_version"
        ]
    );
    assert_eq!(v["status"], "done");
    assert_eq!(v["timed_out"], false);
    assert_eq!(v["created"], true);
    let link = v["target"].as_str().unwrap().to_string();
    assert_eq!(count_lines(&w.screen(&p, &link), "first"), 1);

    let t = Instant::now();
    // A client timeout shorter than the wait: --wait widens it.
    let (v, code) = w.run_env(
        &p,
        &[
            "sessions",
            "send",
            &link,
            "sleep 2; echo WAITED",
            "--wait",
            "--json",
        ],
        &[("TERMIO_CLI_TIMEOUT", "1000")],
    );
    assert_eq!(code, 0, "{v}");
    assert!(t.elapsed() >= Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(v["status"], "done");
    assert_eq!(v["timed_out"], false);
    assert!(v.get("created").is_none());
    assert_eq!(count_lines(&w.screen(&p, &link), "WAITED"), 1);
}

#[test]
fn wait_fails_fast_when_the_input_has_no_effect() {
    let w = World::new();
    let p = w.folder("p");
    // A program that neither echoes nor reads: typed text changes nothing.
    let link = w.start(&p, "stty -echo; sleep 30");
    w.status_until(&p, &link, "working");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    assert_eq!(
        w.err(&p, &["send", &link, "ignored", "--wait"]),
        "prompt_stalled"
    );
    let took = t.elapsed();
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(9),
        "{took:?}"
    );
}

#[test]
fn wait_reports_a_session_that_closes() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "echo bye");
    w.status_until(&p, &link, "done");
    assert_eq!(
        w.err(&p, &["send", &link, "exit", "--wait"]),
        "session_closed"
    );
}

#[test]
fn wait_times_out_with_exit_code_3() {
    let w = World::new();
    let p = w.folder("p");
    let t = Instant::now();
    // A screen that never settles; --timeout 10 is clamped to 1000 ms.
    let (v, code) = w.run(
        &p,
        &[
            "sessions",
            "run",
            "while :; do date +%s%N; sleep 0.1; done",
            "--wait",
            "--timeout",
            "10",
            "--json",
        ],
    );
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["timed_out"], true);
    assert!(t.elapsed() >= Duration::from_secs(1));
    let link = v["target"].as_str().unwrap().to_string();
    let (v, code) = w.run(
        &p,
        &[
            "sessions",
            "send",
            &link,
            "",
            "--key",
            "Enter",
            "--wait",
            "--timeout",
            "1000",
            "--json",
        ],
    );
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["timed_out"], true);
    assert_eq!(v["status"], "working");
}

#[test]
fn every_error_code_from_a_real_trigger() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "echo x");
    w.start(&p, "echo same");
    w.start(&p, "echo same");

    assert_eq!(w.err(&p, &["frobnicate"]), "bad_op");
    assert_eq!(
        w.err(&p, &["send", &link, "x", "--key", "NoSuchKey"]),
        "bad_request"
    );
    assert_eq!(
        w.err(&p, &["read", &link, "--lines", "zero"]),
        "bad_request"
    );
    assert_eq!(
        w.err_env(&p, &["list"], &[("TERMIO_CLI_TIMEOUT", "banana")]),
        "bad_request"
    );
    assert_eq!(w.err(&p, &["run", ""]), "no_text");
    assert_eq!(w.err(&p, &["run"]), "no_text");
    assert_eq!(w.err(&p, &["send", &link]), "no_text");
    assert_eq!(w.err(&p, &["read"]), "no_target");
    assert_eq!(w.err(&p, &["send"]), "no_target");
    assert_eq!(w.err(&p, &["close"]), "no_target");
    assert_eq!(w.err(&p, &["read", "nonesuch"]), "not_found");
    assert_eq!(w.err(&p, &["read", "echo same"]), "ambiguous");
    assert_eq!(
        w.err_env(&p, &["run", "echo x"], &[("SHELL", "/nonexistent/shell")]),
        "start_failed"
    );
    assert_eq!(
        w.err_env(
            &p,
            &["list"],
            &[("TERMIO_SESSION", "01234567-89ab-4def-8123-456789abcdef")]
        ),
        "no_scope"
    );
    // not_live: a session whose shell has exited.
    let gone = w.start(&p, "exit");
    w.status_until(&p, &gone, "exited");
    assert_eq!(w.err(&p, &["send", &gone, "x"]), "not_live");
    // not_live: a host that does not answer in time (a socket nobody serves).
    let mute = w.root().join("mute");
    std::fs::create_dir_all(&mute).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(mute.join("host.sock")).unwrap();
    let mute_rt = mute.to_str().unwrap();
    assert_eq!(
        w.err_env(
            &p,
            &["list"],
            &[
                ("CONSOLE2SVG_RUNTIME_DIR", mute_rt),
                ("TERMIO_CLI_TIMEOUT", "500")
            ]
        ),
        "not_live"
    );
    // disabled: session control turned off in the config file.
    let cfg = w.root().join("config/termio");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(cfg.join("config.yaml"), "session_control: false\n").unwrap();
    assert_eq!(w.err(&p, &["list"]), "disabled");

    // Readable errors go to stderr, exit 1.
    let out = w.termio(&p).args(["sessions", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("disabled"));
}

#[test]
fn termio_session_resolves_the_callers_own_project() {
    let w = World::new();
    let p = w.folder("p");
    let out = w.root().join("out.json");
    let env_out = w.root().join("env.txt");
    let termio = assert_cmd::cargo::cargo_bin("termio");
    // From `/`, only TERMIO_SESSION can tell the project.
    let command = format!(
        "cd / && {} sessions list --json > {} && echo \"$TERMIO_SESSION $TERMIO_PROJECT\" > {}",
        termio.display(),
        out.display(),
        env_out.display()
    );
    let link = w.start(&p, &command);
    let end = Instant::now() + Duration::from_secs(15);
    while !env_out.exists() {
        assert!(Instant::now() < end, "the inner command never ran");
        std::thread::sleep(Duration::from_millis(100));
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["project"], p.to_str().unwrap());
    assert_eq!(v["sessions"][0]["link"], link.as_str());
    let env = std::fs::read_to_string(&env_out).unwrap();
    assert_eq!(
        env.trim(),
        format!("{} {}", uuid(&link), p.to_str().unwrap())
    );
}

/// SC-01: a shell slow to start (its rc file sleeps) gets its command once, after its prompt.
#[test]
fn run_waits_for_a_slow_shell_before_typing() {
    let w = World::new();
    let p = w.folder("p");
    std::fs::write(w.root().join("home/.bashrc"), "sleep 1\n").unwrap();
    let link = w.start(&p, "echo READY-$((6*7))");
    let t = Instant::now();
    w.screen_until(&p, &link, |s| count_lines(s, "READY-42") == 1);
    assert!(t.elapsed() < Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count_lines(&w.screen(&p, &link), "READY-42"), 1);
}

/// SC-01 with zsh (when installed): `.zshrc` is `sleep 1`.
#[test]
fn run_waits_for_a_slow_zsh_before_typing() {
    let Ok(zsh) = which("zsh") else { return };
    let w0 = World::new();
    let zdot = w0.folder("zdot");
    std::fs::write(zdot.join(".zshrc"), "sleep 1\n").unwrap();
    let w = w0
        .with("ZDOTDIR", zdot.to_str().unwrap())
        .with("SHELL", &zsh);
    let p = w.folder("p");
    let link = w.start(&p, "echo READY-$((6*7))");
    let t = Instant::now();
    w.screen_until(&p, &link, |s| count_lines(s, "READY-42") == 1);
    assert!(t.elapsed() < Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(count_lines(&w.screen(&p, &link), "READY-42"), 1);
}

fn which(program: &str) -> Result<String, ()> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .map(|p| p.to_string_lossy().into_owned())
        .ok_or(())
}

#[test]
fn help_lists_the_verbs_and_focuses_on_one() {
    let w = World::new();
    let p = w.folder("p");
    let out = w.termio(&p).args(["sessions", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for verb in ["list", "run", "read", "send", "close"] {
        assert!(text.contains(verb), "{verb} in {text}");
    }
    let out = w
        .termio(&p)
        .args(["sessions", "send", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--key") && text.contains("--no-enter") && text.contains("--wait"));
}

/// A session `console2svg session start` started is a termio session of the project of its
/// working directory.
#[test]
fn console2svg_sessions_belong_to_the_project_of_their_directory() {
    let w = World::new();
    let p = w.folder("p");
    let other = w.folder("other");
    let out = w
        .console2svg(&p)
        .args(["session", "start", "--", "bash", "--norc", "-i"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let id: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = id["sessionId"].as_str().unwrap();
    let list = w.ok(&p, &["list"]);
    let s = &list["sessions"][0];
    assert_eq!(s["id"], &id[2..10]);
    assert_eq!(s["description"], "bash --norc -i");
    assert_eq!(w.ok(&other, &["list"])["sessions"], serde_json::json!([]));
    let link = s["link"].as_str().unwrap().to_string();
    w.status_until(&p, &link, "idle");
    w.ok(&p, &["send", &link, "sleep 1"]);
    w.status_until(&p, &link, "working");
    w.status_until(&p, &link, "done");
}

/// The hex bytes a byte probe has shown (rows that are one hex pair).
fn probe_bytes(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(str::trim)
        .filter(|l| l.len() == 2 && l.chars().all(|c| c.is_ascii_hexdigit()))
        .map(str::to_string)
        .collect()
}

/// SC-02/SC-03/SC-04 on the wire: keys by name, multi-line text pasted as one submission (the
/// program enabled bracketed paste), the Return in its own write after it.
#[test]
fn keys_and_multi_line_text_reach_the_program_as_bytes() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(
        &p,
        r#"sh -c 'printf "\033[?2004h"; stty raw -echo opost; exec od -An -tx1 -w1 -v'"#,
    );
    w.status_until(&p, &link, "working");
    std::thread::sleep(Duration::from_millis(300));
    w.ok(&p, &["send", &link, "a\nb"]);
    let want = [
        "1b", "5b", "32", "30", "30", "7e", "61", "0a", "62", "1b", "5b", "32", "30", "31", "7e",
        "0d",
    ];
    let screen = w.screen_until(&p, &link, |s| probe_bytes(s).len() >= want.len());
    assert_eq!(probe_bytes(&screen), want);
    w.ok(&p, &["close", &link]);

    let link = w.start(
        &p,
        r#"sh -c 'stty raw -echo opost; exec od -An -tx1 -w1 -v'"#,
    );
    w.status_until(&p, &link, "working");
    std::thread::sleep(Duration::from_millis(300));
    w.ok(
        &p,
        &[
            "send",
            &link,
            "--key",
            "Shift+Tab",
            "--key",
            "Tab",
            "--key",
            "Up",
        ],
    );
    let want = ["1b", "5b", "5a", "09", "1b", "5b", "41"];
    let screen = w.screen_until(&p, &link, |s| probe_bytes(s).len() >= want.len());
    assert_eq!(probe_bytes(&screen), want);
}

/// A send right after `run` waits for the run's own command: it reaches `cat`, not the
/// booting shell.
#[test]
fn a_send_right_after_run_follows_the_queued_command() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "cat");
    w.ok(&p, &["send", &link, "early"]);
    let screen = w.screen_until(&p, &link, |s| count_lines(s, "early") == 2);
    assert!(!screen.contains("command not found"), "{screen}");
    assert_eq!(w.status(&p, &link), "working");
}

/// Titles follow the program's OSC title; the link stays, and the new title addresses it.
#[test]
fn titles_change_links_do_not() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, r"printf '\033]2;renamed\007'");
    let end = Instant::now() + Duration::from_secs(15);
    while w.entry(&p, &link)["title"] != "renamed" {
        assert!(
            Instant::now() < end,
            "title never changed: {}",
            w.entry(&p, &link)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        w.entry(&p, &link)["description"],
        r"printf '\033]2;renamed\007'"
    );
    assert_eq!(w.ok(&p, &["read", "renamed"])["target"], link.as_str());
    assert_eq!(w.ok(&p, &["read", "renamed"])["title"], "renamed");
}

/// `watch --json`: the roster first (snapshot lines, this project only), then live events
/// filtered to done/needs-you by default (or widened with --state), a heartbeat after the
/// test's short interval of silence, exit 0 on Ctrl-C and 2 when the host is killed.
#[test]
fn watch_streams_the_roster_then_pushed_changes() {
    let w = World::new().with("TERMIO_WATCH_HEARTBEAT_MS", "800");
    let p = w.folder("p");
    let other = w.folder("other");
    let first = w.start(&p, "echo first");
    let foreign = w.start(&other, "echo foreign");
    w.status_until(&p, &first, "done");
    w.status_until(&other, &foreign, "done");

    let default = Watch::start(&w, &p, &["--json"]);
    let wide = Watch::start(
        &w,
        &p,
        &["--json", "--state", "working,done", "--no-snapshot"],
    );
    let mut quit = Watch::start(&w, &p, &["--json"]);

    // The roster: exactly this project's session, with its current status.
    let snap = default.next();
    assert_eq!(snap["snapshot"], true, "{snap}");
    assert_eq!(snap["link"], first.as_str());
    assert_eq!(snap["status"], "done");
    assert_eq!(snap["title"], "echo first");
    assert_eq!(snap["schema_version"], 1);
    assert_eq!(snap["cwd"], p.to_str().unwrap());
    assert!(snap.get("transcript").is_none() && snap.get("prompt").is_none());
    assert!(snap.get("cursor_end").is_none(), "{snap}");

    // A live change, pushed: the new session's `done` (its `working` filtered out by default).
    let second = w.start(&p, "sleep 1; echo second");
    let (done, before) = default.until(|v| v["link"] == second.as_str());
    assert_eq!(done["status"], "done", "{done}");
    assert!(done.get("snapshot").is_none(), "{done}");
    assert!(
        before.iter().all(|v| v["heartbeat"] == true),
        "only heartbeats before the done event: {before:?}"
    );
    // --state working,done --no-snapshot: no roster; the working step shows, then done.
    let (working, before) = wide.until(|v| v["link"] == second.as_str());
    assert_eq!(working["status"], "working", "{working}");
    assert!(before.iter().all(|v| v["heartbeat"] == true), "{before:?}");
    let (done2, _) = wide.until(|v| v["link"] == second.as_str());
    assert_eq!(done2["status"], "done");
    // Nothing from the other project reached either stream.
    let foreign_link = foreign.as_str();
    w.ok(&other, &["send", foreign_link, "echo again"]);

    // Silence: a heartbeat, and no event about the other project's activity.
    let (beat, before) = default.until(|v| v.get("heartbeat").is_some());
    assert_eq!(beat, serde_json::json!({"heartbeat": true}));
    assert!(
        before.iter().all(|v| v["link"] != foreign_link),
        "{before:?}"
    );
    let (_, before) = default.until(|v| v.get("heartbeat").is_some());
    assert!(
        before.iter().all(|v| v["link"] != foreign_link),
        "{before:?}"
    );

    // Ctrl-C ends supervision normally: exit 0.
    let _ = quit.next();
    signal(quit.child.id(), "INT");
    assert_eq!(quit.exit_code(), 0);

    // The host goes away: exit 2.
    let mut default = default;
    signal(w.host_pid() as u32, "KILL");
    assert_eq!(default.exit_code(), 2);
    let mut wide = wide;
    assert_eq!(wide.exit_code(), 2);
}

/// Bad `watch` arguments fail loud with the error shape.
#[test]
fn watch_rejects_an_unknown_state() {
    let w = World::new();
    let p = w.folder("p");
    assert_eq!(
        w.err(&p, &["watch", "--state", "done,finished"]),
        "bad_request"
    );
}

/// `focus` replies `focused` with the link; an unknown target is `not_found` and no target
/// is `no_target`.
#[test]
fn focus_replies_focused() {
    let w = World::new();
    let p = w.folder("p");
    let link = w.start(&p, "echo hi");
    let v = w.ok(&p, &["focus", &link[link.len() - 36..link.len() - 28]]);
    assert_eq!(v["focused"], link.as_str());
    assert_eq!(v["title"], "echo hi");
    assert_eq!(w.err(&p, &["focus", "nonesuch"]), "not_found");
    assert_eq!(w.err(&p, &["focus"]), "no_target");
    let q = w.folder("q");
    assert_eq!(w.err(&q, &["focus", &link]), "not_found");
}

/// `termio attach` run inside a `console2svg session` (the project testing itself): it shows
/// the focused session, switches when `focus` is called from another shell, forwards typed
/// keys to the shown session, and Ctrl-] detaches (exit 0) leaving the sessions running.
#[test]
fn attach_follows_focus_and_forwards_keys() {
    let w = World::new();
    let p = w.folder("p");
    let alpha = w.start(&p, "echo alpha-screen");
    let beta = w.start(&p, "echo beta-screen");
    w.screen_until(&p, &alpha, |s| count_lines(s, "alpha-screen") == 1);
    w.screen_until(&p, &beta, |s| count_lines(s, "beta-screen") == 1);
    w.ok(&p, &["focus", &alpha]);

    let c2s = |args: &[&str]| -> Value {
        let out = w
            .console2svg(&p)
            .arg("session")
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "console2svg session {args:?}: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    };
    let termio = assert_cmd::cargo::cargo_bin("termio");
    let started = c2s(&[
        "start",
        "--width",
        "140",
        "--height",
        "20",
        "--",
        termio.to_str().unwrap(),
        "attach",
    ]);
    let id = started["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_string();
    let read = |id: &str| -> String {
        let v = c2s(&["read", id]);
        let text = v["text"].as_str().or(v["screen"]["text"].as_str());
        text.unwrap_or_else(|| panic!("{v}")).to_string()
    };
    // A whole row: the session's output, not its title in the header.
    let wait_for = |text: &str| {
        let v = c2s(&["wait", &id, "--text", text, "--line", "--timeout", "15s"]);
        assert_eq!(v["matched"], true, "never showed {text:?}: {v}");
    };
    wait_for("alpha-screen");
    let screen = read(&id);
    assert!(
        screen.lines().next().unwrap().contains("termio attach"),
        "{screen}"
    );
    assert!(
        screen.contains(&alpha),
        "the header names the link: {screen}"
    );
    assert!(screen.contains("Ctrl-] detaches"), "{screen}");
    assert!(!screen.contains("beta-screen"), "{screen}");

    // `focus` from another shell switches what attach shows.
    let focused = w.ok(&p, &["focus", &beta]);
    wait_for("beta-screen");
    let screen = read(&id);
    assert!(!screen.contains("alpha-screen"), "{screen}");
    assert!(screen.contains(&beta), "{screen}");
    // The shown session takes the attach terminal's size: 140 columns, 20 rows less the header.
    let beta_host = focused["session"].as_str().unwrap();
    let size = |host: &str| {
        let s = c2s(&["read", host]);
        (s["screen"]["width"].clone(), s["screen"]["height"].clone())
    };
    let end = Instant::now() + Duration::from_secs(10);
    while size(beta_host) != (140.into(), 19.into()) {
        assert!(Instant::now() < end, "never resized: {:?}", size(beta_host));
        std::thread::sleep(Duration::from_millis(100));
    }

    // Focus on the attach's own session is not followed (it would mirror itself).
    w.ok(&p, &["focus", &id[2..10]]);
    std::thread::sleep(Duration::from_millis(700));
    let screen = read(&id);
    assert_eq!(screen.matches("termio attach").count(), 1, "{screen}");
    assert!(screen.contains(&beta), "{screen}");

    // Keystrokes go to the shown session.
    c2s(&[
        "send",
        &id,
        "--text",
        "echo typed-$((6*7))",
        "--keys",
        "Enter",
    ]);
    w.screen_until(&p, &beta, |s| s.contains("typed-42"));
    assert!(!w.screen(&p, &alpha).contains("typed"));

    // The shown session closes: attach moves on to the project's other session (never its own).
    w.ok(&p, &["close", &beta]);
    wait_for("alpha-screen");
    assert!(read(&id).contains(&alpha));

    // Ctrl-] detaches: attach exits 0, both sessions keep running.
    c2s(&["send", &id, "--raw-hex", "1d"]);
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let v = c2s(&["read", &id]);
        if v["state"] == "exited" {
            assert_eq!(v["exitCode"], 0, "{v}");
            break;
        }
        assert!(Instant::now() < end, "attach did not exit: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(w.status(&p, &alpha), "done");
}

/// `termio attach` needs a terminal: with stdin not a tty it fails with the error shape and
/// focuses nothing.
#[test]
fn attach_without_a_terminal_fails_loud() {
    let w = World::new();
    let p = w.folder("p");
    let a = w.start(&p, "echo a");
    let out = w
        .termio(&p)
        .args(["attach", "--json", &a])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    common::termio::assert_error_shape(&v);
    assert_eq!(v["error"], "bad_request", "{v}");
}

/// `watch --state stalled`: under a short configured threshold, a working session with no
/// output and no repo change raises one `stalled` event with the detector's evidence; a
/// session streaming output and one editing a file in the project do not. The status stays
/// `working`.
#[test]
fn watch_raises_the_stall_alarm_once_per_quiet_stretch() {
    let w = World::new();
    let config = w.root().join("config/termio");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.yaml"),
        "stall_after: 1500ms\nstall_lines: 10\n",
    )
    .unwrap();
    let p = w.folder("p");
    // A repo change is project-wide: the editing session gets a project of its own.
    let q = w.folder("q");
    w.ok(&p, &["list"]); // The host is up before the watches subscribe.
    let args = ["--json", "--no-snapshot", "--state", "stalled"];
    let watch = Watch::start(&w, &p, &args);
    let watch_q = Watch::start(&w, &q, &args);
    std::thread::sleep(Duration::from_millis(300));
    let quiet = w.start(&p, "sleep 60");
    let chatty = w.start(&p, "while :; do echo tick; sleep 0.05; done");
    let editor = w.start(&q, "while :; do date +%N > edited.txt; sleep 0.2; done");

    let (stalled, before) = watch.until(|v| v.get("heartbeat").is_none());
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(stalled["link"], quiet.as_str(), "{stalled}");
    assert_eq!(stalled["status"], "stalled");
    assert_eq!(stalled["title"], "sleep 60");
    let evidence = stalled["evidence"].as_str().unwrap();
    let shape = regex::Regex::new(r"^working \d+s, no repo change, output \+\d lines$").unwrap();
    assert!(shape.is_match(evidence), "{evidence}");
    // Once per quiet stretch, and nothing for the busy ones over twice the threshold.
    let more = watch.lines.recv_timeout(Duration::from_millis(4000));
    assert!(more.is_err(), "a second alarm: {more:?}");
    let edits = watch_q.lines.try_recv();
    assert!(
        edits.is_err(),
        "a session editing its repo stalled: {edits:?}"
    );
    assert_eq!(
        w.status(&p, &quiet),
        "working",
        "the alarm never changes the status"
    );
    assert_eq!(w.status(&p, &chatty), "working");
    assert_eq!(w.status(&q, &editor), "working");
}

/// A stall threshold that is not a duration is a config error every verb reports.
#[test]
fn a_bad_stall_threshold_is_reported() {
    let w = World::new();
    let config = w.root().join("config/termio");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.yaml"), "stall_after: banana\n").unwrap();
    let p = w.folder("p");
    assert_eq!(w.err(&p, &["list"]), "bad_request");
    std::fs::write(config.join("config.yaml"), "stall_after: 0s\n").unwrap();
    assert_eq!(w.err(&p, &["watch", "--state", "stalled"]), "bad_request");
    std::fs::write(config.join("config.yaml"), "stall_after: 90s\n").unwrap();
    w.ok(&p, &["list"]);
}
