//! Session latency benchmark, in-process through the library: the time from a `send` of a
//! unique token + Enter to the `wait` reply that sees its echo, as an agent linked against
//! `console2svg::host::client` experiences it.
//!
//! Target (issue): median ≤ 10 ms.
//!
//! Per iteration: `Send` (token, Enter) → its reply's `version`; `WaitStart` with
//! `Condition { text: token, since: Some(version), .. }`; `WaitPoll` until `matched`. Timed from
//! just before the `Send` request to the matched reply. Like the CLI, a matched waiter is not
//! ended with `WaitEnd`.
//!
//! The host must be the real CLI binary (`client::connect` would otherwise re-run *this* bench
//! executable as the host), so the bench starts it with `$CONSOLE2SVG_BIN` (default
//! `target/release/console2svg`) before the first library request. Without
//! `$CONSOLE2SVG_RUNTIME_DIR`, a private temporary runtime directory is used, so the bench gets
//! its own host. The session it started is stopped at the end.
//!
//! Run with `cargo bench --bench session_latency` (after `cargo build --release`), or from
//! `benches/session.sh`. `$LATENCY_RUNS` sets N (default 200). The last output line is
//! machine-readable: `RESULT inproc_latency_ms median=<ms> p90=<ms> …`.

use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use console2svg::host::protocol::{Condition, Request, Until};
use console2svg::host::{client, paths};
use console2svg::term::keys::Input;

const WARMUP: usize = 10;
const ITERATION_TIMEOUT: Duration = Duration::from_secs(3);

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[i - 1]
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    s
}

/// Starts the host with the CLI binary (a `session list` starts it on demand) unless one already
/// answers on the socket. Checked with a raw connect: `client::request` must not run before a
/// host exists, or `client::connect` would spawn this bench executable as the host.
fn ensure_host() {
    let socket = paths::socket_path();
    if UnixStream::connect(&socket).is_ok() {
        return;
    }
    let bin = std::env::var_os("CONSOLE2SVG_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/console2svg")
        });
    let mut cmd = Command::new(&bin);
    cmd.args(["session", "list"]).stdout(Stdio::null());
    if std::env::var_os("CONSOLE2SVG_HOST_IDLE_SECS").is_none() {
        // A host started for this run alone goes away soon after its session is stopped.
        cmd.env("CONSOLE2SVG_HOST_IDLE_SECS", "10");
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (cargo build --release)", bin.display()));
    assert!(status.success(), "{} session list failed", bin.display());
    assert!(
        UnixStream::connect(&socket).is_ok(),
        "no host at {} after starting one",
        socket.display()
    );
}

/// One send → matched-wait round trip; `None` when it did not match within the timeout.
fn round_trip(id: &str, token: &str) -> Option<Duration> {
    let t0 = Instant::now();
    let sent = client::request(&Request::Send {
        id: id.into(),
        inputs: vec![Input::Text(token.to_string()), Input::Keys("Enter".into())],
        gap_ms: None,
    })
    .expect("send");
    let version = sent["version"].as_u64().expect("version in the send reply");
    let mut reply = client::request(&Request::WaitStart {
        id: id.into(),
        condition: Condition {
            text: token.to_string(),
            regex: false,
            until: Until::Present,
            stable_for_ms: 0,
            line: false,
            since: Some(version),
        },
        timeout_ms: None,
    })
    .expect("wait-start");
    let waiter = reply["waiter"].as_u64().expect("waiter id");
    while reply["result"] == "pending" {
        if t0.elapsed() > ITERATION_TIMEOUT {
            let _ = client::request(&Request::WaitEnd {
                id: id.into(),
                waiter,
            });
            let screen = client::request(&Request::Read {
                id: id.into(),
                structured: false,
            })
            .map(|r| format!("version {}, text {:?}", r["version"], r["screen"]["text"]))
            .unwrap_or_default();
            let tail: String = screen
                .chars()
                .rev()
                .take(200)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            eprintln!("miss: {token:?} not seen after send reply version {version}; now {tail}");
            return None;
        }
        reply = client::request(&Request::WaitPoll {
            id: id.into(),
            waiter,
        })
        .expect("wait-poll");
    }
    let elapsed = t0.elapsed();
    assert_eq!(reply["result"], "matched", "unexpected wait reply: {reply}");
    Some(elapsed)
}

fn main() {
    // Never act as the host: `client::connect` re-runs the current executable with `__host`.
    if std::env::args().any(|a| a == "__host") {
        eprintln!("session_latency: not a host");
        std::process::exit(2);
    }
    let _private_dir;
    if std::env::var_os("CONSOLE2SVG_RUNTIME_DIR").is_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::env::set_var("CONSOLE2SVG_RUNTIME_DIR", dir.path());
        _private_dir = Some(dir);
    }
    let runs: usize = std::env::var("LATENCY_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    ensure_host();

    let started = client::request(&Request::Start(console2svg::host::protocol::Launch {
        argv: vec!["cat".into()],
        cwd: std::env::temp_dir().to_string_lossy().into_owned(),
        width: 100,
        height: 24,
        color_env: true,
        delete_ci_env: true,
        env: None,
        scrollback: None,
        record: false,
    }))
    .expect("start");
    let id = started["sessionId"]
        .as_str()
        .expect("sessionId")
        .to_string();

    let measured = std::panic::catch_unwind(|| {
        for i in 0..WARMUP {
            round_trip(&id, &format!("warm{i:04}x"));
        }
        let mut times = Vec::with_capacity(runs);
        let mut misses = 0usize;
        for i in 0..runs {
            match round_trip(&id, &format!("tok{i:05}q")) {
                Some(d) => times.push(d.as_secs_f64() * 1000.0),
                None => misses += 1,
            }
        }
        (times, misses)
    });
    let _ = client::request(&Request::Stop {
        id: id.as_str().into(),
    });
    let (times, misses) = match measured {
        Ok(r) => r,
        Err(e) => std::panic::resume_unwind(e),
    };

    assert!(!times.is_empty(), "no round trip matched");
    let all = sorted(&times);
    let q = times.len() / 4;
    let first = sorted(&times[..q.max(1)]);
    let last = sorted(&times[times.len() - q.max(1)..]);
    println!(
        "in-process send→wait latency ({} runs after {WARMUP} warm-up, cat, 100×24): \
         median {:.3} ms, p90 {:.3} ms, min {:.3} ms, max {:.3} ms, misses {misses}",
        times.len(),
        median(&all),
        percentile(&all, 0.9),
        all[0],
        all[all.len() - 1],
    );
    println!(
        "  first quarter median {:.3} ms, last quarter median {:.3} ms",
        median(&first),
        median(&last)
    );
    println!(
        "RESULT inproc_latency_ms median={:.3} p90={:.3} runs={} misses={misses}",
        median(&all),
        percentile(&all, 0.9),
        times.len()
    );
}
