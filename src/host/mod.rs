//! The background host that keeps PTY sessions alive between CLI calls: a Unix-socket server
//! over a session registry ([`server`]), the sessions themselves ([`session`]) and the one
//! I/O loop thread that serves every session's PTY (`io`: epoll via `polling`), the protocol
//! ([`protocol`]), the client side ([`client`]), where the socket lives ([`paths`]) and the
//! termio view of the sessions ([`termio`]: projects, links, status, list entries; agent
//! sessions' status machine, monitor and turns in [`agent_status`]), the events pushed to
//! subscribers ([`events`]: watch and attach streams) and the stall alarm ([`stall`]).
//! Contract: shared/spec/console2svg-session.md and the `session` part of
//! shared/spec/console2svg-contract.md.

pub mod agent_status;
pub mod client;
pub mod events;
pub mod inspect;
mod io;
pub mod journal;
pub mod paths;
pub mod protocol;
pub mod recovery;
pub mod reply;
pub mod server;
pub mod session;
pub mod stall;
pub mod termio;
