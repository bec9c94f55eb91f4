//! `console2svg live-server`: a session's screen live in a browser (shared/spec/
//! console2svg-contract.md, "live-server protocol").
//!
//! A client of the session host, as [`crate::mcp`] is: the screens come from the host's
//! `attach` stream ([`crate::host::events::serve_attach`], a frame per change), rendered here
//! by our SVG renderer ([`crate::render::render_svg`]) and served over HTTP:
//!
//! | endpoint | content |
//! |---|---|
//! | `GET /` | the viewer page ([`PAGE`]): one `EventSource`, the SVG replaced per event |
//! | `GET /events` | `text/event-stream`: `svg` events (the whole SVG, one `data:` line per line of it), `ended` when the program ends, `heartbeat` every 2 s |
//! | `GET /snapshot.svg` | the current SVG |
//! | `GET /health` | `{"status":"ok"}` |
//! | `GET /settings` | `{"fit": …, "fps": …}`, the viewer's settings |
//!
//! What is shown is a [`Source`]: one session, or whichever session `termio sessions focus`
//! put in front of a termio project ([`crate::host::events::Event::Focus`] on the host's
//! event stream), switching as the focus moves.
//!
//! Frames are throttled to [`Config::fps`]; every client is sent the latest frame when it is
//! ready for one (a slow client skips frames, never queues them).

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use serde::Serialize;

use crate::host::client::{self, StreamEnd};
use crate::host::events::{Event, Frame};
use crate::host::protocol::{HostError, Request};
use crate::render::{fonts::Fonts, Appearance};
use crate::term::Screen;

/// The address served when none is given: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:38473";

/// The address to listen on for `given` (a flag or the config's `live-server.host`): empty or
/// absent is [`DEFAULT_ADDR`]; `:PORT` is loopback (`127.0.0.1:PORT`), as the original's
/// config reads it; anything else as given.
pub fn listen_address(given: Option<&str>) -> String {
    match given.map(str::trim) {
        None | Some("") => DEFAULT_ADDR.to_string(),
        Some(a) if a.starts_with(':') => format!("127.0.0.1{a}"),
        Some(a) => a.to_string(),
    }
}

/// The viewer page served at `GET /`.
pub const PAGE: &str = include_str!("page.html");

/// How often an idle event stream carries a `heartbeat` event.
pub const HEARTBEAT: Duration = Duration::from_secs(2);

/// How the viewer fits the picture into the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    /// The whole picture, as large as fits.
    Contain,
    /// The window's width.
    Width,
    /// The window's height.
    Height,
    /// One SVG pixel per CSS pixel.
    Actual,
}

/// What the page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// One host session, by id.
    Session(String),
    /// The session in front of a termio project (its directory, as `termio sessions list`
    /// names it), following `termio sessions focus`.
    Focus {
        /// The project.
        project: String,
    },
}

/// How screens become frames.
pub struct Config {
    /// Most frames a second (1–60).
    pub fps: u32,
    /// The viewer's fit mode.
    pub fit: Fit,
    /// The appearance the screens are rendered with.
    pub appearance: Appearance,
    /// The masking (and crop) applied to each screen before rendering, as a capture's.
    pub still: crate::options::Still,
    /// Never draw the cursor.
    pub no_cursor: bool,
}

/// A listening socket, bound before anything is started (a port in use fails first).
pub struct Listener {
    server: tiny_http::Server,
    addr: SocketAddr,
}

impl Listener {
    /// Binds `addr` (`host:port`; port 0 picks a free one).
    ///
    /// Errors: one line naming the address: unparsable, in use, or not allowed.
    pub fn bind(addr: &str) -> Result<Listener, String> {
        let tcp = TcpListener::bind(addr).map_err(|e| match e.kind() {
            std::io::ErrorKind::AddrInUse => format!("cannot listen on {addr}: the port is in use"),
            _ => format!("cannot listen on {addr}: {e}"),
        })?;
        let addr = tcp
            .local_addr()
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let server = tiny_http::Server::from_listener(tcp, None)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        Ok(Listener { server, addr })
    }

    /// The address bound (with the port picked when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// The latest frame, shared by the renderer and every client.
#[derive(Default)]
struct Board {
    /// Counts frames; 0 until the first.
    frame: u64,
    svg: Arc<str>,
    /// The shown program has ended (with its exit code, when known).
    ended: Option<Option<i32>>,
}

/// What the server threads share.
struct Shared {
    board: Mutex<Board>,
    changed: Condvar,
    stop: AtomicBool,
    settings: String,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// What the followers hand the renderer: screens and ends, tagged with the generation of the
/// session shown (a focus move starts a new one).
enum Msg {
    Screen(u64, Box<Screen>),
    Ended(u64, Option<i32>),
    Shown(u64),
}

/// Serves `source` on `listener` until `stop()` says so (checked every 200 ms).
///
/// Errors: the host's, when the session or the project's event stream cannot be opened
/// (`session_not_found` for an unknown session).
pub fn serve(
    listener: Listener,
    source: Source,
    config: Config,
    mut stop: impl FnMut() -> bool,
) -> Result<(), HostError> {
    let settings = serde_json::json!({"fit": config.fit, "fps": config.fps}).to_string();
    let shared = Arc::new(Shared {
        board: Mutex::new(Board {
            svg: waiting_svg().into(),
            ..Board::default()
        }),
        changed: Condvar::new(),
        stop: AtomicBool::new(false),
        settings,
    });
    let (tx, rx) = mpsc::channel();
    let generation = Arc::new(AtomicU64::new(0));
    match source {
        Source::Session(id) => {
            // Opened here, so an unknown session is an error before anything is served.
            let (_, stream) = client::open_stream(&Request::Attach {
                id: id.as_str().into(),
            })?;
            follow(stream, 0, Arc::clone(&generation), tx.clone());
        }
        Source::Focus { project } => {
            let (_, stream) = client::open_stream(&Request::Subscribe)?;
            let (generation, tx) = (Arc::clone(&generation), tx.clone());
            std::thread::Builder::new()
                .name("live-focus".into())
                .spawn(move || follow_focus(stream, project, generation, tx))
                .map_err(thread_error)?;
        }
    }
    drop(tx);
    {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("live-render".into())
            .spawn(move || render_loop(rx, generation, config, &shared))
            .map_err(thread_error)?;
    }
    while !stop() {
        match listener.server.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(request)) => route(request, &shared),
            Ok(None) => {}
            Err(_) => break,
        }
    }
    shared.stop.store(true, Ordering::SeqCst);
    shared.changed.notify_all();
    Ok(())
}

fn thread_error(e: std::io::Error) -> HostError {
    HostError::new(
        crate::host::protocol::ErrorCode::IoError,
        format!("cannot start a thread: {e}"),
    )
}

/// Hands the screens of an attach stream to the renderer as generation `generation`, until
/// the session ends, the stream closes, or another generation is shown.
fn follow(mut stream: client::Stream, generation: u64, shown: Arc<AtomicU64>, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        while shown.load(Ordering::SeqCst) == generation {
            let frame = match stream.next(Duration::from_secs(1)) {
                Ok(v) => serde_json::from_value::<Frame>(v).ok(),
                Err(StreamEnd::Quiet) => continue,
                Err(StreamEnd::Closed) => break,
            };
            let msg = match frame {
                Some(Frame::Screen { screen, .. }) => Msg::Screen(generation, screen),
                Some(Frame::Ended { exit_code, .. }) => {
                    let _ = tx.send(Msg::Ended(generation, exit_code));
                    return;
                }
                None => continue,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
}

/// Follows the focus of `project` on the host's event stream: each move to another session
/// starts a new generation showing it.
fn follow_focus(
    mut events: client::Stream,
    project: String,
    shown: Arc<AtomicU64>,
    tx: Sender<Msg>,
) {
    let mut current: Option<String> = None;
    loop {
        let event = match events.next(Duration::from_secs(3600)) {
            Ok(v) => serde_json::from_value::<Event>(v).ok(),
            Err(StreamEnd::Quiet) => continue,
            Err(StreamEnd::Closed) => return,
        };
        let Some(Event::Focus {
            scope, session_id, ..
        }) = event
        else {
            continue;
        };
        if scope != project || current.as_ref() == Some(&session_id) {
            continue;
        }
        let Ok((_, stream)) = client::open_stream(&Request::Attach {
            id: session_id.as_str().into(),
        }) else {
            continue;
        };
        let generation = shown.fetch_add(1, Ordering::SeqCst) + 1;
        if tx.send(Msg::Shown(generation)).is_err() {
            return;
        }
        follow(stream, generation, Arc::clone(&shown), tx.clone());
        current = Some(session_id);
    }
}

/// Renders the latest screen at most `config.fps` times a second and posts it on the board.
fn render_loop(rx: Receiver<Msg>, shown: Arc<AtomicU64>, config: Config, shared: &Shared) {
    let fonts = Fonts::new();
    let interval = Duration::from_secs_f64(1.0 / f64::from(config.fps.clamp(1, 60)));
    let mut last: Option<Instant> = None;
    let mut pending: Option<Box<Screen>> = None;
    let mut ended = None;
    loop {
        // Wait for something, then take everything queued: the latest screen wins.
        let first = match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) if pending.is_none() && ended.is_none() => {
                if shared.stopped() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => None,
        };
        if shared.stopped() {
            return;
        }
        let take = |m: Msg, pending: &mut Option<Box<Screen>>, ended: &mut Option<Option<i32>>| {
            absorb(m, shown.load(Ordering::SeqCst), pending, ended, shared)
        };
        if let Some(m) = first {
            take(m, &mut pending, &mut ended);
        }
        while let Ok(m) = rx.try_recv() {
            take(m, &mut pending, &mut ended);
        }
        if pending.is_some() {
            if let Some(wait) = last.map(|t| interval.saturating_sub(t.elapsed())) {
                if !wait.is_zero() {
                    std::thread::sleep(wait);
                    while let Ok(m) = rx.try_recv() {
                        take(m, &mut pending, &mut ended);
                    }
                }
            }
        }
        if let Some(screen) = pending.take() {
            let svg = render(*screen, &config, &fonts);
            let mut board = shared.board.lock();
            board.frame += 1;
            board.svg = svg.into();
            drop(board);
            last = Some(Instant::now());
            shared.changed.notify_all();
        }
        if let Some(code) = ended.take() {
            shared.board.lock().ended = Some(code);
            shared.changed.notify_all();
        }
    }
}

/// Applies one follower message for generation `now`: a screen to render, an end, or a new
/// session shown (which drops what was pending for the previous one).
fn absorb(
    m: Msg,
    now: u64,
    pending: &mut Option<Box<Screen>>,
    ended: &mut Option<Option<i32>>,
    shared: &Shared,
) {
    match m {
        Msg::Screen(g, s) if g == now => *pending = Some(s),
        Msg::Ended(g, code) if g == now => *ended = Some(code),
        Msg::Shown(g) if g == now => {
            *pending = None;
            *ended = None;
            shared.board.lock().ended = None;
        }
        _ => {}
    }
}

/// One screen as SVG: the cursor hidden when asked, masked and cropped as a capture is.
fn render(mut screen: Screen, config: &Config, fonts: &Fonts) -> String {
    if config.no_cursor {
        screen.cursor.visible = false;
    }
    let rows = 0..screen.rows.len();
    match config.still.apply(screen, rows, &config.appearance, fonts) {
        Ok(screen) => crate::render::render_svg(&screen, &config.appearance, fonts),
        Err(e) => message_svg(&format!("cannot render: {e}")),
    }
}

/// The picture shown before the first screen arrives.
fn waiting_svg() -> String {
    message_svg("waiting for a screen…")
}

/// A small SVG holding one line of text.
fn message_svg(text: &str) -> String {
    let text = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"40\" viewBox=\"0 0 480 40\"><text x=\"10\" y=\"25\" font-family=\"monospace\" font-size=\"14\" fill=\"#888\">{text}</text></svg>"
    )
}

/// Answers one request (an event stream on its own thread).
fn route(request: tiny_http::Request, shared: &Arc<Shared>) {
    let path = request.url().split('?').next().unwrap_or("").to_string();
    if !matches!(
        request.method(),
        tiny_http::Method::Get | tiny_http::Method::Head
    ) {
        let _ = request.respond(text(
            405,
            "text/plain; charset=utf-8",
            "method not allowed\n".into(),
        ));
        return;
    }
    let response = match path.as_str() {
        "/" | "/index.html" => text(200, "text/html; charset=utf-8", PAGE.into()),
        "/snapshot.svg" => {
            let svg = shared.board.lock().svg.to_string();
            text(200, "image/svg+xml", svg)
        }
        "/health" => text(200, "application/json", "{\"status\":\"ok\"}".into()),
        "/settings" => text(200, "application/json", shared.settings.clone()),
        "/events" => {
            let shared = Arc::clone(shared);
            let _ = std::thread::Builder::new()
                .name("live-events".into())
                .spawn(move || stream_events(request.into_writer(), &shared));
            return;
        }
        _ => text(404, "text/plain; charset=utf-8", "not found\n".into()),
    };
    let _ = request.respond(response);
}

fn text(
    status: u16,
    content_type: &str,
    body: String,
) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes())
        .expect("a valid header");
    let no_cache = tiny_http::Header::from_bytes(&b"Cache-Control"[..], &b"no-store"[..])
        .expect("a valid header");
    tiny_http::Response::from_data(body.into_bytes())
        .with_status_code(status)
        .with_header(header)
        .with_header(no_cache)
}

/// One SSE event: `event: NAME`, then `data:` per line of `data`, then a blank line.
pub fn sse_event(name: &str, data: &str) -> String {
    let mut out = format!("event: {name}\n");
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push('\n');
    }
    out.push('\n');
    out
}

/// Serves `/events` on `w` until the client goes or the server stops: the latest frame each
/// time there is a newer one, `ended` once, and a heartbeat when idle.
fn stream_events(mut w: Box<dyn Write + Send>, shared: &Shared) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n";
    if w.write_all(head.as_bytes())
        .and_then(|_| w.flush())
        .is_err()
    {
        return;
    }
    let mut seen = 0;
    let mut ended_sent = false;
    loop {
        let (svg, ended) = {
            let mut board = shared.board.lock();
            if board.frame == seen && board.ended.is_some() == ended_sent && !shared.stopped() {
                shared.changed.wait_for(&mut board, HEARTBEAT);
            }
            let svg = (board.frame != seen).then(|| Arc::clone(&board.svg));
            seen = board.frame;
            (svg, board.ended)
        };
        if shared.stopped() {
            return;
        }
        let mut out = String::new();
        if let Some(svg) = svg {
            out.push_str(&sse_event("svg", &svg));
        }
        match ended {
            Some(code) if !ended_sent => {
                let data = serde_json::json!({"exitCode": code}).to_string();
                out.push_str(&sse_event("ended", &data));
                ended_sent = true;
            }
            None => ended_sent = false,
            _ => {}
        }
        if out.is_empty() {
            out = sse_event("heartbeat", "{}");
        }
        if w.write_all(out.as_bytes()).and_then(|_| w.flush()).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_has_one_data_line_per_line_and_ends_with_a_blank_line() {
        assert_eq!(sse_event("svg", "<svg/>"), "event: svg\ndata: <svg/>\n\n");
        assert_eq!(
            sse_event("svg", "<a>\r\n</a>"),
            "event: svg\ndata: <a>\ndata: </a>\n\n"
        );
    }

    #[test]
    fn a_port_in_use_is_one_line_naming_the_address() {
        let first = Listener::bind("127.0.0.1:0").unwrap();
        let addr = first.addr().to_string();
        let e = Listener::bind(&addr).err().expect("the port is taken");
        assert_eq!(e, format!("cannot listen on {addr}: the port is in use"));
    }

    #[test]
    fn a_bare_port_listens_on_loopback() {
        assert_eq!(listen_address(None), "127.0.0.1:38473");
        assert_eq!(listen_address(Some("")), "127.0.0.1:38473");
        assert_eq!(listen_address(Some(":8080")), "127.0.0.1:8080");
        assert_eq!(listen_address(Some("0.0.0.0:9")), "0.0.0.0:9");
    }

    #[test]
    fn message_pictures_escape_their_text() {
        assert!(message_svg("a<b&c").contains("a&lt;b&amp;c"));
    }
}
