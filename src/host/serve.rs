//! The request loop: every client connection of the host served by one thread over a readiness
//! poller (epoll via `polling`), as tmux serves its clients, so a request costs no thread of
//! its own and no hand-off between threads.
//!
//! The loop accepts connections, reads each one's request line (within [`READ_DEADLINE`], at
//! most [`MAX_REQUEST_BYTES`]), applies requests one at a time in connection-acceptance order
//! (session spec: "The host accepts one IPC request at a time and applies actions in
//! connection-acceptance order"; see [`Order`]) through the [`Registry`], and writes the
//! replies without blocking (within [`WRITE_DEADLINE`]). A reply that would hold the loop (a
//! `wait` poll of up to 100 ms, stopping processes, serialising a large screen: an
//! [`Outcome::Later`]) is computed and written by a small pool of reply threads that grows
//! only while all of its threads are busy; a stream (subscriptions, attach) gets a thread of
//! its own for as long as it lasts. A slow or stalled client costs only its own connection.

use std::collections::{BTreeMap, HashMap};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use polling::{Event, Events, Poller};
use serde::Serialize;

use super::protocol::{ErrorCode, HostError, Request, MAX_REQUEST_BYTES};
use super::reply;

/// How long a connection may take to send its whole request line; also how long a connection
/// accepted earlier can hold back the requests accepted after it.
pub const READ_DEADLINE: Duration = Duration::from_secs(2);

/// How long writing a reply may take before the client is given up on.
pub const WRITE_DEADLINE: Duration = Duration::from_secs(5);

/// How long a reply thread with nothing to do stays for the next deferred reply.
const POOL_KEEP: Duration = Duration::from_secs(5);

/// The poller key of the listening socket; connections take the keys after it.
const LISTENER: usize = 0;

/// Work the loop hands to a reply thread, so it never waits itself: it returns the reply line.
pub type Later = Box<dyn FnOnce() -> Result<String, HostError> + Send>;

/// What the registry makes of a request.
pub enum Outcome {
    /// The reply line, written by the loop.
    Now(String),
    /// The reply, computed (and written) by a reply thread.
    Later(Later),
    /// The connection becomes a stream served by this function (subscriptions, attach), on a
    /// thread of its own.
    Stream(Box<dyn FnOnce(UnixStream) + Send>),
}

impl Outcome {
    /// A reply ready now.
    pub fn now<T: Serialize>(reply: &T) -> Result<Outcome, HostError> {
        Ok(Outcome::Now(reply::to_line(reply)))
    }
}

/// What the loop serves requests from: the session registry.
pub trait Registry {
    /// Applies one request.
    fn route(&mut self, request: Request) -> Result<Outcome, HostError>;
    /// Runs after each applied request (subscribers, records, the idle clock follow the
    /// registry).
    fn applied(&mut self);
    /// Periodic work; the loop calls it at least every `period` it returns. `None` ends the
    /// loop (the host has been idle long enough).
    fn tick(&mut self, now: Instant) -> Option<Duration>;
}

/// Serves `listener` with `registry` until [`Registry::tick`] ends it, or the poller fails.
///
/// Errors: a message when the poller cannot be set up.
pub fn serve(listener: &UnixListener, registry: &mut impl Registry) -> Result<(), String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot serve the socket: {e}"))?;
    let poller = Poller::new().map_err(|e| format!("cannot serve the socket: {e}"))?;
    // SAFETY: the listener outlives the poller (both live until this function returns).
    unsafe {
        poller.add_with_mode(
            listener,
            Event::readable(LISTENER),
            polling::PollMode::Level,
        )
    }
    .map_err(|e| format!("cannot serve the socket: {e}"))?;
    let mut conns: HashMap<usize, Conn> = HashMap::new();
    let mut order: Order<(usize, Result<Request, HostError>)> = Order::default();
    let mut next_key = LISTENER + 1;
    let mut next_seq = 0u64;
    let pool = Pool::new();
    let mut events = Events::new();
    let mut period = registry.tick(Instant::now()).unwrap_or(Duration::ZERO);
    let mut next_tick = Instant::now() + period;
    loop {
        let now = Instant::now();
        let due = conns
            .values()
            .map(|c| c.deadline)
            .chain([next_tick])
            .min()
            .unwrap_or(next_tick);
        let timeout = order
            .wait_at_most(now, due.saturating_duration_since(now))
            .max(Duration::from_millis(1));
        events.clear();
        if let Err(e) = poller.wait(&mut events, Some(timeout)) {
            if e.kind() != ErrorKind::Interrupted {
                return Err(format!("cannot serve the socket: {e}"));
            }
        }
        let now = Instant::now();
        for ev in events.iter() {
            if ev.key == LISTENER {
                while let Ok((stream, _)) = listener.accept() {
                    let key = next_key;
                    next_key += 1;
                    let Some(conn) = Conn::new(&poller, key, next_seq, stream, now) else {
                        continue; // Dropped: its client sees the connection close.
                    };
                    order.accepted(next_seq, conn.deadline);
                    next_seq += 1;
                    conns.insert(key, conn);
                }
                continue;
            }
            let Some(c) = conns.get_mut(&ev.key) else {
                continue;
            };
            let done = match c.phase {
                Phase::Reading => {
                    if let Some(request) = c.read(&poller, ev.key) {
                        order.arrived(c.seq, (ev.key, request));
                    }
                    false
                }
                Phase::Queued => false,
                Phase::Writing => c.write(&poller, ev.key),
            };
            if done {
                close(&poller, &mut conns, ev.key);
            }
        }
        // Deadlines: a request line that did not complete gets its error reply; a reply the
        // client does not take is given up on.
        let late: Vec<usize> = conns
            .iter()
            .filter(|(_, c)| c.deadline <= now && c.phase != Phase::Queued)
            .map(|(k, _)| *k)
            .collect();
        for key in late {
            let c = conns.get_mut(&key).expect("listed");
            if c.phase == Phase::Reading {
                c.phase = Phase::Queued;
                let _ = poller.modify(&c.stream, Event::none(key));
                let e = HostError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "the request did not arrive within {} s",
                        READ_DEADLINE.as_secs()
                    ),
                );
                order.arrived(c.seq, (key, Err(e)));
            } else {
                close(&poller, &mut conns, key);
            }
        }
        while let Some((key, request)) = order.next(Instant::now()) {
            let outcome = request.and_then(|r| registry.route(r));
            registry.applied();
            deliver(&poller, &pool, &mut conns, key, outcome);
        }
        if Instant::now() >= next_tick {
            match registry.tick(Instant::now()) {
                Some(p) => period = p,
                None => return Ok(()),
            }
            next_tick = Instant::now() + period;
        }
    }
}

/// Where a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading the request line (deadline: [`READ_DEADLINE`] from acceptance).
    Reading,
    /// The request waits for its turn (no deadline of its own: [`Order`] bounds it).
    Queued,
    /// Writing the reply (deadline: [`WRITE_DEADLINE`] from the reply).
    Writing,
}

/// One client connection on the loop.
struct Conn {
    seq: u64,
    stream: UnixStream,
    phase: Phase,
    /// The request line so far, then the reply's bytes.
    buf: Vec<u8>,
    /// Reply bytes already written.
    written: usize,
    deadline: Instant,
}

impl Conn {
    /// Registers an accepted connection for reading; `None` when it cannot be served.
    fn new(
        poller: &Poller,
        key: usize,
        seq: u64,
        stream: UnixStream,
        now: Instant,
    ) -> Option<Conn> {
        stream.set_nonblocking(true).ok()?;
        // SAFETY: the stream is deleted from the poller before it is dropped (`close`,
        // `take`).
        unsafe { poller.add(&stream, Event::readable(key)) }.ok()?;
        Some(Conn {
            seq,
            stream,
            phase: Phase::Reading,
            buf: Vec::new(),
            written: 0,
            deadline: now + READ_DEADLINE,
        })
    }

    /// Reads what has arrived; the request once its line is complete (or the client closed
    /// its side, or sent too much), re-arming the poller otherwise.
    fn read(&mut self, poller: &Poller, key: usize) -> Option<Result<Request, HostError>> {
        let bad = |m: String| HostError::new(ErrorCode::InvalidRequest, m);
        let mut chunk = [0u8; 16 * 1024];
        let line = loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => break Ok(std::mem::take(&mut self.buf)),
                Ok(n) => {
                    let seen = self.buf.len();
                    self.buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = memchr::memchr(b'\n', &self.buf[seen..]) {
                        let mut line = std::mem::take(&mut self.buf);
                        line.truncate(seen + end);
                        break Ok(line);
                    }
                    if self.buf.len() > MAX_REQUEST_BYTES {
                        break Err(bad(format!(
                            "request larger than {MAX_REQUEST_BYTES} bytes"
                        )));
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let _ = poller.modify(&self.stream, Event::readable(key));
                    return None;
                }
                Err(e) => break Err(bad(format!("cannot read the request: {e}"))),
            }
        };
        self.phase = Phase::Queued;
        // The request is read before the peer is judged, so a refused client still gets its
        // reply instead of a broken pipe.
        Some(line.and_then(|line| {
            check_peer(&self.stream)?;
            serde_json::from_slice(&line).map_err(|e| bad(format!("malformed request: {e}")))
        }))
    }

    /// Starts writing `line` (a newline is added).
    fn reply(&mut self, line: String) {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        self.buf = bytes;
        self.written = 0;
        self.phase = Phase::Writing;
        self.deadline = Instant::now() + WRITE_DEADLINE;
    }

    /// Writes what the socket takes; whether the connection is finished (all written, or the
    /// client went away). Re-arms the poller for the rest.
    fn write(&mut self, poller: &Poller, key: usize) -> bool {
        while self.written < self.buf.len() {
            match self.stream.write(&self.buf[self.written..]) {
                Ok(0) => return true,
                Ok(n) => self.written += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    return poller.modify(&self.stream, Event::writable(key)).is_err();
                }
                Err(_) => return true,
            }
        }
        true
    }
}

/// Closes connection `key`.
fn close(poller: &Poller, conns: &mut HashMap<usize, Conn>, key: usize) {
    if let Some(c) = conns.remove(&key) {
        let _ = poller.delete(&c.stream);
    }
}

/// Takes connection `key` off the loop, its stream blocking again, for a thread to finish.
fn take(poller: &Poller, conns: &mut HashMap<usize, Conn>, key: usize) -> Option<UnixStream> {
    let c = conns.remove(&key)?;
    let _ = poller.delete(&c.stream);
    c.stream.set_nonblocking(false).ok()?;
    Some(c.stream)
}

/// Hands an outcome to its connection: written now, by a reply thread, or as a stream.
fn deliver(
    poller: &Poller,
    pool: &Pool,
    conns: &mut HashMap<usize, Conn>,
    key: usize,
    outcome: Result<Outcome, HostError>,
) {
    let line = match outcome {
        Ok(Outcome::Now(line)) => line,
        Err(e) => e.envelope().to_string(),
        Ok(Outcome::Later(work)) => {
            if let Some(mut stream) = take(poller, conns, key) {
                pool.run(Box::new(move || {
                    let line = work().unwrap_or_else(|e| e.envelope().to_string());
                    let mut bytes = line.into_bytes();
                    bytes.push(b'\n');
                    let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
                    let _ = stream.write_all(&bytes);
                }));
            }
            return;
        }
        Ok(Outcome::Stream(serve)) => {
            if let Some(stream) = take(poller, conns, key) {
                let _ = std::thread::Builder::new()
                    .name("host-stream".into())
                    .spawn(move || serve(stream));
            }
            return;
        }
    };
    let Some(c) = conns.get_mut(&key) else {
        return;
    };
    c.reply(line);
    if c.write(poller, key) {
        close(poller, conns, key);
    }
}

/// Errors: `permission_denied` unless the peer is this host's own user.
fn check_peer(stream: &UnixStream) -> Result<(), HostError> {
    match rustix::net::sockopt::socket_peercred(stream) {
        Ok(cred) if cred.uid == rustix::process::getuid() => Ok(()),
        Ok(_) => Err(HostError::new(
            ErrorCode::PermissionDenied,
            "the host serves only its own user",
        )),
        Err(e) => Err(HostError::new(
            ErrorCode::PermissionDenied,
            format!("cannot check the peer: {e}"),
        )),
    }
}

/// Requests held until every connection accepted before theirs is applied or has passed its
/// read deadline (session spec: connection-acceptance order). `J` is what a request carries.
struct Order<J> {
    /// Accepted connections not applied yet, and when their request line is due.
    waiting: BTreeMap<u64, Instant>,
    /// Requests that arrived, by acceptance number.
    ready: BTreeMap<u64, J>,
}

impl<J> Default for Order<J> {
    fn default() -> Self {
        Order {
            waiting: BTreeMap::new(),
            ready: BTreeMap::new(),
        }
    }
}

impl<J> Order<J> {
    /// Connection `seq` was accepted; its request line is due by `deadline`.
    fn accepted(&mut self, seq: u64, deadline: Instant) {
        self.waiting.insert(seq, deadline);
    }

    /// Connection `seq`'s request (or why it could not be read) arrived.
    fn arrived(&mut self, seq: u64, job: J) {
        self.ready.insert(seq, job);
    }

    /// The next request to apply now, if any: the oldest accepted connection's once it has
    /// arrived; a connection past its deadline no longer holds the others back (its request,
    /// should it still come, is applied when it does). Requests of connections not waited
    /// for any more come first.
    fn next(&mut self, now: Instant) -> Option<J> {
        loop {
            let stray = self
                .ready
                .keys()
                .copied()
                .find(|seq| !self.waiting.contains_key(seq));
            if let Some(seq) = stray {
                return self.ready.remove(&seq);
            }
            let (&seq, &deadline) = self.waiting.first_key_value()?;
            if let Some(job) = self.ready.remove(&seq) {
                self.waiting.remove(&seq);
                return Some(job);
            }
            if deadline > now {
                return None;
            }
            self.waiting.remove(&seq);
        }
    }

    /// How long the loop may sleep before [`Order::next`] can change by time alone.
    fn wait_at_most(&self, now: Instant, longest: Duration) -> Duration {
        self.waiting.first_key_value().map_or(longest, |(_, d)| {
            d.saturating_duration_since(now).min(longest)
        })
    }
}

/// A task of the reply pool.
type Task = Box<dyn FnOnce() + Send>;

/// The reply threads: tasks run on an idle thread, or on a new one when all are busy; a
/// thread idle for [`POOL_KEEP`] leaves.
struct Pool {
    tasks: Sender<Task>,
    inbox: Arc<Mutex<Receiver<Task>>>,
    /// Threads waiting for a task, less tasks sent and not taken yet.
    spare: Arc<AtomicUsize>,
}

impl Pool {
    fn new() -> Pool {
        let (tasks, inbox) = mpsc::channel();
        Pool {
            tasks,
            inbox: Arc::new(Mutex::new(inbox)),
            spare: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs `task` on a reply thread.
    fn run(&self, task: Task) {
        // Take a spare thread if there is one, else start one.
        let had_spare = self
            .spare
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .is_ok();
        if self.tasks.send(task).is_err() {
            return;
        }
        if had_spare {
            return;
        }
        let inbox = self.inbox.clone();
        let spare = self.spare.clone();
        let spawned = std::thread::Builder::new()
            .name("host-reply".into())
            .spawn(move || reply_thread(&inbox, &spare));
        if spawned.is_err() {
            // The task stays queued for the next thread that frees up.
        }
    }
}

/// A reply thread: takes the queued tasks, then waits up to [`POOL_KEEP`] as a spare.
fn reply_thread(inbox: &Mutex<Receiver<Task>>, spare: &AtomicUsize) {
    loop {
        let next = inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .recv_timeout(POOL_KEEP);
        match next {
            Ok(task) => {
                task();
                spare.fetch_add(1, Ordering::AcqRel);
            }
            Err(RecvTimeoutError::Timeout) => {
                // Leave unless a task was promised to this thread meanwhile.
                if spare
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                    .is_ok()
                {
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_apply_in_acceptance_order_not_arrival_order() {
        let t0 = Instant::now();
        let mut o = Order::default();
        for seq in 0..3 {
            o.accepted(seq, t0 + READ_DEADLINE);
        }
        o.arrived(2, "two");
        o.arrived(1, "one");
        assert_eq!(o.next(t0), None, "connection 0 comes first");
        o.arrived(0, "zero");
        assert_eq!(o.next(t0), Some("zero"));
        assert_eq!(o.next(t0), Some("one"));
        assert_eq!(o.next(t0), Some("two"));
        assert_eq!(o.next(t0), None);
    }

    #[test]
    fn a_connection_past_its_read_deadline_holds_no_one_back() {
        let t0 = Instant::now();
        let mut o = Order::default();
        o.accepted(0, t0 + READ_DEADLINE);
        o.accepted(1, t0 + READ_DEADLINE);
        o.arrived(1, "one");
        assert_eq!(o.next(t0), None);
        let longest = Duration::from_millis(250);
        assert_eq!(o.wait_at_most(t0, longest), longest.min(READ_DEADLINE));
        assert_eq!(o.next(t0 + READ_DEADLINE), Some("one"), "0 gave up on");
        // Its request, arriving late after all, is still applied.
        o.arrived(0, "zero");
        assert_eq!(o.next(t0 + READ_DEADLINE), Some("zero"));
    }

    #[test]
    fn the_pool_runs_tasks_concurrently_and_reuses_spare_threads() {
        let pool = Pool::new();
        let (tx, rx) = mpsc::channel();
        // Two tasks that each wait for the other: they finish only if both run at once.
        let (a_tx, a_rx) = mpsc::channel::<()>();
        let (b_tx, b_rx) = mpsc::channel::<()>();
        let done = tx.clone();
        pool.run(Box::new(move || {
            a_tx.send(()).unwrap();
            b_rx.recv_timeout(Duration::from_secs(5)).unwrap();
            done.send(std::thread::current().id()).unwrap();
        }));
        let done = tx.clone();
        pool.run(Box::new(move || {
            b_tx.send(()).unwrap();
            a_rx.recv_timeout(Duration::from_secs(5)).unwrap();
            done.send(std::thread::current().id()).unwrap();
        }));
        let first = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        let second = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_ne!(first, second);
        // Both are spare now: the next task takes one of them.
        std::thread::sleep(Duration::from_millis(50));
        let done = tx.clone();
        pool.run(Box::new(move || {
            done.send(std::thread::current().id()).unwrap();
        }));
        let third = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            third == first || third == second,
            "a spare thread was reused"
        );
    }
}
