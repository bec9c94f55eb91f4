//! The background host that keeps PTY sessions alive between CLI calls: a generic PTY session
//! host. A Unix-socket server over a session registry ([`server`]; its request loop, `serve`:
//! one thread for every client connection, in acceptance order), the sessions themselves
//! ([`session`]) and the one I/O loop thread that serves every session's PTY (`io`: epoll via
//! `polling`), the protocol ([`protocol`]: requests) and its typed replies ([`reply`]), crash
//! recovery ([`recovery`]: what a successor host needs, sessions of a dead host listed as
//! `unavailable`), the client side ([`client`]), where the socket
//! lives ([`paths`]), the journal of each session ([`journal`]), inspections ([`inspect`]) and
//! the events pushed to subscribers ([`events`]: summaries, closed sessions, focus; the attach
//! stream).
//!
//! Services plug in through [`extension`]: their own requests, session notifications, their
//! part of each summary and a periodic tick. termio is one (`termio::service`); the host
//! never names it, the binaries install it.
//!
//! Contract: shared/spec/console2svg-session.md and the `session` part of
//! shared/spec/console2svg-contract.md.

pub mod client;
pub mod events;
pub mod extension;
pub mod inspect;
mod io;
pub mod journal;
pub mod paths;
pub mod protocol;
pub mod recovery;
pub mod reply;
mod serve;
pub mod server;
pub mod session;
