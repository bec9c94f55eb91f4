//! `console2svg live-server` (shared/spec/console2svg-contract.md, "live-server protocol"):
//! the real server on a free port, a real host, real bash, and the page opened in headless
//! Chromium, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::termio::World;

/// The tests that measure time run one at a time: on a two-core machine a flooding program
/// and two browsers at once would measure the machine, not the server.
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());
use serde_json::{json, Value};

/// A running `live-server`, stopped with SIGINT (as Ctrl+C) when dropped.
struct Live {
    child: Child,
    /// `http://127.0.0.1:PORT/`
    url: String,
}

impl Live {
    /// Starts `console2svg live-server 127.0.0.1:0 <args>` in `cwd` and reads the address it
    /// serves from its first line.
    fn start(w: &World, cwd: &Path, args: &[&str]) -> Live {
        let mut child = w
            .console2svg(cwd)
            .arg("live-server")
            .arg("127.0.0.1:0")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let mut err = String::new();
                let _ = child.stderr.take().unwrap().read_to_string(&mut err);
                panic!("no address in {line:?}: {err}")
            })
            .to_string();
        Live { child, url }
    }

    /// `GET path`: the status code, the content type and the body.
    fn get(&self, path: &str) -> (u16, String, String) {
        let authority = self.url.trim_start_matches("http://").trim_end_matches('/');
        let mut s = TcpStream::connect(authority).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let content_type = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-type: ")
                    .map(String::from)
            })
            .unwrap_or_default();
        (status, content_type, body.to_string())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Headless Chromium driven over the DevTools protocol on a socket given as fds 3 and 4
/// (`--remote-debugging-pipe`: NUL-terminated JSON messages).
struct Browser {
    child: Child,
    pipe: UnixStream,
    replies: Receiver<Value>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn launch() -> Browser {
        let profile = common::tempdir();
        let (ours, theirs) = UnixStream::pair().unwrap();
        let fd = theirs.as_raw_fd();
        let mut cmd = Command::new("chromium");
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--remote-debugging-pipe",
            "--window-size=1000,700",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(profile.path().join("stderr.txt")).unwrap());
        // SAFETY: only dup2 (async-signal-safe) runs between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // Above 4 first, so neither dup2 below is onto the descriptor itself.
                let high =
                    rustix::io::fcntl_dupfd_cloexec(std::os::fd::BorrowedFd::borrow_raw(fd), 10)?;
                for n in [3, 4] {
                    let mut target = OwnedFd::from_raw_fd(n);
                    let r = rustix::io::dup2(&high, &mut target);
                    std::mem::forget(target);
                    r?;
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .expect("chromium (Debian's chromium package) runs");
        drop(theirs);
        let (tx, replies) = mpsc::channel();
        let mut reader = BufReader::new(ours.try_clone().unwrap());
        std::thread::spawn(move || loop {
            let mut msg = Vec::new();
            match reader.read_until(0, &mut msg) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    msg.pop();
                    if let Ok(v) = serde_json::from_slice::<Value>(&msg) {
                        if v.get("id").is_some() && tx.send(v).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Browser {
            child,
            pipe: ours,
            replies,
            next_id: 0,
            _profile: profile,
        }
    }

    /// Sends `method` (to a page's `session` when given) and returns its result.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut msg = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.pipe.write_all(&bytes).unwrap();
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let reply = self.replies.recv_timeout(left).unwrap_or_else(|_| {
                let log = std::fs::read_to_string(self._profile.path().join("stderr.txt"));
                panic!(
                    "no reply from chromium to {method}: {}",
                    log.unwrap_or_default()
                )
            });
            if reply["id"] == self.next_id {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    /// Opens `url` in a new tab; returns its DevTools session.
    fn open(&mut self, url: &str) -> String {
        let target = self.call(None, "Target.createTarget", json!({"url": url}));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        attached["sessionId"].as_str().unwrap().to_string()
    }

    /// The text the page's SVG draws now: its `<text>` elements' characters in document
    /// order (one element per glyph, so spaces are not there).
    fn drawn_text(&mut self, page: &str) -> String {
        let expr = "Array.from(document.querySelectorAll('#screen svg text')).map(t => t.textContent).join('')";
        let r = self.call(
            Some(page),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true}),
        );
        r["result"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Polls the page until its drawn text satisfies `f`, at most `limit`; returns how long
    /// it took, or panics with the last text.
    fn until(&mut self, page: &str, limit: Duration, f: impl Fn(&str) -> bool) -> Duration {
        let start = Instant::now();
        loop {
            let text = self.drawn_text(page);
            if f(&text) {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < limit,
                "after {limit:?} the page draws {text:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The id of the only session of the world's host.
fn only_session(w: &World, cwd: &Path) -> String {
    let out = w
        .console2svg(cwd)
        .args(["session", "list"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{v}");
    sessions[0]["sessionId"].as_str().unwrap().to_string()
}

fn session(w: &World, cwd: &Path, args: &[&str]) -> Value {
    let out = w
        .console2svg(cwd)
        .arg("session")
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `live-server -- bash`: the page in headless Chromium shows a text typed into the session
/// within a second; `/health`, `/snapshot.svg`, `/settings` answer, other paths are 404.
#[test]
fn the_page_follows_typing_within_a_second() {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let w = World::new();
    let p = w.folder("p");
    let live = Live::start(&w, &p, &["--", "bash", "--norc", "--noprofile"]);
    assert_eq!(
        live.get("/health"),
        (200, "application/json".into(), "{\"status\":\"ok\"}".into())
    );
    let (status, kind, settings) = live.get("/settings");
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&settings).unwrap(),
        json!({"fit": "contain", "fps": 30})
    );
    assert_eq!(live.get("/nonesuch").0, 404);
    let (status, kind, page) = live.get("/");
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(page.contains("EventSource"), "{page}");

    let id = only_session(&w, &p);
    let mut browser = Browser::launch();
    let tab = browser.open(&live.url);
    // The prompt is drawn first.
    browser.until(&tab, Duration::from_secs(30), |t| t.contains("bash-"));
    let sent = session(&w, &p, &["send", &id, "--text", "typed-into-the-session"]);
    assert_eq!(sent["state"], "running", "{sent}");
    let took = browser.until(&tab, Duration::from_secs(1), |t| {
        t.contains("typed-into-the-session")
    });
    eprintln!("the page showed the typed text after {took:?}");

    let (status, kind, svg) = live.get("/snapshot.svg");
    assert_eq!((status, kind.as_str()), (200, "image/svg+xml"));
    let drawn: String = common::svg_text(&svg).split('\n').collect();
    assert!(drawn.contains("typed-into-the-session"), "{drawn}");
}

/// `live-server --session ID` shows a session started by `console2svg session start`, and
/// the event stream's first event is its current screen as one `svg` event.
#[test]
fn session_flag_shows_an_existing_session() {
    let w = World::new();
    let p = w.folder("p");
    let started = session(
        &w,
        &p,
        &[
            "start",
            "--",
            "bash",
            "--norc",
            "--noprofile",
            "-c",
            "echo already-there; sleep 60",
        ],
    );
    let id = started["sessionId"].as_str().unwrap().to_string();
    let waited = session(
        &w,
        &p,
        &["wait", &id, "--text", "already-there", "--timeout", "10s"],
    );
    assert_eq!(waited["matched"], true, "{waited}");
    let live = Live::start(&w, &p, &["--session", &id]);
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let svg = live.get("/snapshot.svg").2;
        if common::svg_text(&svg).contains("already-there") {
            break;
        }
        assert!(Instant::now() < end, "never shown: {svg}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The event stream: headers, then an `svg` event whose data lines are the picture.
    let authority = live.url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(authority).unwrap();
    write!(s, "GET /events HTTP/1.1\r\nHost: {authority}\r\n\r\n").unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut reader = BufReader::new(s);
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        assert!(reader.read_line(&mut head).unwrap() > 0, "{head}");
    }
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("Content-Type: text/event-stream"), "{head}");
    let mut event = String::new();
    while !event.ends_with("\n\n") {
        assert!(reader.read_line(&mut event).unwrap() > 0, "{event}");
    }
    let svg: String = event
        .strip_prefix("event: svg\n")
        .unwrap_or_else(|| panic!("{event}"))
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(common::svg_text(&svg).contains("already-there"));
}

/// `live-server --termio` in a termio project shows the session in front and follows
/// `termio sessions focus` from another shell.
#[test]
fn the_termio_page_follows_focus() {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let w = World::new();
    let p = w.folder("p");
    let alpha = w.start(&p, "echo alpha-screen; sleep 60");
    let beta = w.start(&p, "echo beta-screen; sleep 60");
    w.screen_until(&p, &alpha, |s| s.contains("alpha-screen"));
    w.screen_until(&p, &beta, |s| s.contains("beta-screen"));
    w.ok(&p, &["focus", &alpha]);
    let live = Live::start(&w, &p, &["--termio"]);
    let mut browser = Browser::launch();
    let tab = browser.open(&live.url);
    browser.until(&tab, Duration::from_secs(30), |t| {
        t.contains("alpha-screen")
    });
    w.ok(&p, &["focus", &beta]);
    browser.until(&tab, Duration::from_secs(10), |t| {
        t.contains("beta-screen") && !t.contains("alpha-screen")
    });
    w.ok(&p, &["focus", &alpha]);
    browser.until(&tab, Duration::from_secs(10), |t| {
        t.contains("alpha-screen") && !t.contains("beta-screen")
    });
}

/// Bad input is one line naming it, a non-zero exit, and nothing started.
#[test]
fn a_port_in_use_or_an_unknown_session_is_one_clear_line() {
    let w = World::new();
    let p = w.folder("p");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = w
        .console2svg(&p)
        .args(["live-server", &addr, "--", "bash"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("console2svg: error: cannot listen on {addr}: the port is in use\n")
    );
    let list = session(&w, &p, &["list", "--all"]);
    assert_eq!(list["sessions"], json!([]), "nothing was started: {list}");

    let out = w
        .console2svg(&p)
        .args(["live-server", "127.0.0.1:0", "--session", "s_nonesuch"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unknown session s_nonesuch"), "{err}");
}

/// Frames are throttled to `--fps`: a screen that changes all the time is sent at most that
/// many times a second (plus the first frame). A small screen changing about 100 times a
/// second, so the host's stream (a frame per change, at most 30 a second) is not what limits
/// the count in a debug build.
#[test]
fn frames_are_throttled_to_fps() {
    let _one_at_a_time = TIMED.lock().unwrap_or_else(|e| e.into_inner());
    let w = World::new();
    let p = w.folder("p");
    let live = Live::start(
        &w,
        &p,
        &[
            "--fps",
            "2",
            "-w",
            "20",
            "-h",
            "3",
            "--",
            "bash",
            "--norc",
            "--noprofile",
            "-c",
            "while :; do echo $RANDOM; sleep 0.01; done",
        ],
    );
    let authority = live.url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(authority).unwrap();
    write!(s, "GET /events HTTP/1.1\r\nHost: {authority}\r\n\r\n").unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut reader = BufReader::new(s);
    let start = Instant::now();
    let mut events = 0;
    let mut line = String::new();
    while start.elapsed() < Duration::from_secs(3) {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) if line == "event: svg\n" => events += 1,
            _ => {}
        }
    }
    eprintln!("{events} frames in 3 s at --fps 2");
    assert!(events >= 2, "the screen kept changing: {events} frames");
    assert!(events <= 2 * 3 + 2, "{events} frames in 3 s at --fps 2");
}
