//! Crash recovery (issue: the host redesign, item 7): a host killed with SIGKILL leaves no
//! processes behind once a successor runs, and its sessions are listed as `unavailable` with
//! `expiresAt`; requests on them fail with `session_error`, export and stop still work; what a
//! dead host left (records, journals) is swept when it expires.

mod common;

use std::time::{Duration, Instant};

use common::session::{processes_with, Host};

/// A program that ignores SIGHUP and SIGTERM, with a background child that does too; both
/// carry `marker` in their command lines (as `$0`).
fn stubborn(marker: &str) -> Vec<String> {
    let idle = "while :; do sleep 1; done";
    vec![
        "sh".into(),
        "-c".into(),
        format!(
            "trap '' HUP TERM; sh -c \"trap '' HUP TERM; {idle}\" {marker}-child & \
             echo READY; {idle}"
        ),
        marker.into(),
    ]
}

fn wait_gone(marker: &str, within: Duration) -> Vec<u32> {
    let end = Instant::now() + within;
    loop {
        let left = processes_with(marker);
        if left.is_empty() || Instant::now() > end {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_killed_host_leaves_no_processes_and_its_sessions_are_unavailable() {
    let h = Host::new();
    let marker = format!("c2s-recover-{}", std::process::id());
    let mut ids = Vec::new();
    for _ in 0..3 {
        let argv = stubborn(&marker);
        let mut args = vec!["--width", "90", "--height", "20", "--"];
        args.extend(argv.iter().map(String::as_str));
        let id = h.start(&args);
        h.wait(&id, "READY");
        ids.push(id);
    }
    h.ok(&["send", &ids[0], "--text", "typed before the crash"]);
    h.ok(&["resize", &ids[1], "--width", "70", "--height", "15"]);
    // READY comes before the background child has exec'd: give it a moment.
    let end = Instant::now() + Duration::from_secs(5);
    while processes_with(&marker).len() < 6 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        processes_with(&marker).len(),
        6,
        "3 programs and 3 children"
    );

    h.kill_host();
    // The next call starts a successor, which ends every process of the dead host's sessions.
    let list = h.ok(&["list", "--all"]);
    let left = wait_gone(&marker, Duration::from_secs(3));
    assert!(left.is_empty(), "processes left behind: {left:?}");
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{list}");
    for s in sessions {
        assert_eq!(s["state"], "unavailable", "{s}");
        assert!(
            s["expiresAt"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{s}"
        );
        assert!(s["updatedAt"].is_string(), "{s}");
        assert_eq!(s["exitCode"], serde_json::Value::Null, "{s}");
        assert!(ids.contains(&s["sessionId"].as_str().unwrap().to_string()));
    }
    let resized = sessions.iter().find(|s| s["sessionId"] == ids[1].as_str());
    assert_eq!(resized.unwrap()["width"], 70, "the record follows resizes");
    assert_eq!(resized.unwrap()["height"], 15);
    // Not running: a plain `list` leaves them out.
    assert_eq!(h.ok(&["list"])["sessions"].as_array().unwrap().len(), 0);

    // Every request that needs the live session says what happened.
    for args in [
        vec!["read", ids[0].as_str()],
        vec!["send", ids[0].as_str(), "--text", "x"],
        vec!["resize", ids[0].as_str(), "--width", "50", "--height", "10"],
        vec![
            "wait",
            ids[0].as_str(),
            "--text",
            "READY",
            "--timeout",
            "1s",
        ],
        vec!["capture", ids[0].as_str(), "-o", "x.svg"],
    ] {
        let v = h.fails(&args, "session_error");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("unavailable"), "{args:?}: {message}");
    }

    // Its journal survived: the session can still be exported.
    let out = h.dir.path().join("lost.yaml");
    let exported = h.ok(&["export", &ids[0], "-o", out.to_str().unwrap()]);
    assert_eq!(exported["sessionId"], ids[0].as_str());
    let yaml = std::fs::read_to_string(&out).unwrap();
    assert!(yaml.contains("typed before the crash"), "{yaml}");

    // A third host still knows them (the successor may exit idle; the records stay).
    h.kill_host();
    let again = h.ok(&["list", "--all"]);
    assert_eq!(again["sessions"].as_array().unwrap().len(), 3, "{again}");
    assert_eq!(
        again["sessions"], list["sessions"],
        "lostAt is kept, not renewed"
    );

    // stop deletes one; stop --all the rest.
    let stopped = h.ok(&["stop", &ids[2]]);
    assert_eq!(stopped["state"], "stopped");
    h.fails(&["read", &ids[2]], "session_not_found");
    let all = h.ok(&["stop", "--all", "--yes"]);
    assert_eq!(all["stopped"].as_array().unwrap().len(), 2, "{all}");
    assert_eq!(h.ok(&["list", "--all"])["sessions"], serde_json::json!([]));
    let journals = std::fs::read_dir(h.rt().join("journals")).unwrap().count();
    assert_eq!(journals, 0, "journals go with the sessions");
}

#[test]
fn lost_sessions_and_their_journals_go_when_they_expire() {
    let h = Host::with_env(&[("CONSOLE2SVG_RETENTION_SECS", "1")]);
    let id = h.start(&["--", "sleep", "600"]);
    let journal = h.rt().join("journals").join(format!("{id}.jsonl"));
    assert!(journal.exists(), "{}", journal.display());
    // A journal no record accounts for (left by an older host) is swept at once.
    let orphan = h
        .rt()
        .join("journals")
        .join("s_00000000000000000000000000000001.jsonl");
    std::fs::write(&orphan, "").unwrap();
    h.kill_host();
    assert_eq!(
        h.ok(&["list", "--all"])["sessions"][0]["state"],
        "unavailable"
    );
    assert!(!orphan.exists(), "orphan journal swept");
    assert!(journal.exists(), "kept while the lost session is listed");
    std::thread::sleep(Duration::from_millis(1500));
    let end = Instant::now() + Duration::from_secs(3);
    while journal.exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!journal.exists(), "swept when the lost session expired");
    h.fails(&["read", &id], "session_expired");
    assert_eq!(h.ok(&["list", "--all"])["sessions"], serde_json::json!([]));
    assert_eq!(
        std::fs::read_dir(h.rt().join("sessions")).unwrap().count(),
        0,
        "no record left"
    );
}

#[test]
fn a_client_mid_request_when_the_host_dies_gets_host_unavailable() {
    let h = Host::new();
    let marker = format!("c2s-midreq-{}", std::process::id());
    let argv = stubborn(&marker);
    let mut args = vec!["--"];
    args.extend(argv.iter().map(String::as_str));
    let id = h.start(&args);
    h.wait(&id, "READY");
    // `stop` of a program that ignores SIGTERM holds its reply for the 2 s grace.
    dies_mid_request(&h, &["stop", &id]);
    // And the successor cleans up after the dead host.
    h.ok(&["list", "--all"]);
    assert!(wait_gone(&marker, Duration::from_secs(3)).is_empty());
}

#[test]
fn a_wait_in_progress_when_the_host_dies_ends_with_host_unavailable() {
    let h = Host::new();
    let id = h.start(&["--", "sleep", "600"]);
    dies_mid_request(&h, &["wait", &id, "--text", "never shown"]);
}

/// Runs `session <args>`, kills the host with SIGKILL 0.5 s later, and requires the client to
/// end within 5 s with `host_unavailable` (exit 1).
fn dies_mid_request(h: &Host, args: &[&str]) {
    let mut client = std::process::Command::new(assert_cmd::cargo::cargo_bin("console2svg"));
    client
        .env("CONSOLE2SVG_RUNTIME_DIR", h.rt())
        .arg("session")
        .args(args)
        .stdout(std::process::Stdio::piped());
    let client = client.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    h.kill_host();
    let out = client.wait_with_output().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{args:?} took {took:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "host_unavailable", "{args:?}: {v}");
    assert_eq!(out.status.code(), Some(1));
}
