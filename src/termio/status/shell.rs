//! The status of a plain terminal running a shell (shared/spec/termio-sessions.md, "Live
//! agent status": `idle`, `working`, `done`): a `run` session, or a lone shell `console2svg`
//! started. The machine ([`Shell`]) follows the PTY's foreground process group: a command
//! holds the terminal while its group is in front. It takes what was seen and the time as
//! arguments, so it is tested from scripted observations.

use std::time::{Duration, Instant};

use crate::termio::reply::Status;

/// After a command line is submitted at the prompt, the status is `working` for up to this
/// long before the command has been seen holding the terminal (the shell is still forking).
pub const SUBMIT_GRACE: Duration = Duration::from_millis(500);

/// After a command was last seen holding the terminal, the status stays `working` this long,
/// so a loop of short commands (each its own process group) does not flicker to `done`.
pub const BUSY_HOLD: Duration = Duration::from_millis(250);

/// What the machine remembers of a shell session.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Shell {
    /// A command has run at the shell prompt.
    ran: bool,
    /// When termio last submitted a command line at the prompt.
    submitted: Option<Instant>,
    /// When a command was last seen holding the terminal.
    busy_seen: Option<Instant>,
}

impl Shell {
    /// The status of the running shell at `now`, given whether a command (a process group
    /// other than the shell's) holds the terminal: `working` while one does, for
    /// [`SUBMIT_GRACE`] after a submitted command line and [`BUSY_HOLD`] after a command was
    /// last seen; else `done` once a command has run, else `idle`.
    pub fn observe(&mut self, busy: bool, now: Instant) -> Status {
        if busy {
            self.ran = true;
            self.busy_seen = Some(now);
            self.submitted = None;
            return Status::Working;
        }
        let recent = |at: Option<Instant>, d: Duration| at.is_some_and(|at| now - at < d);
        if recent(self.submitted, SUBMIT_GRACE) || recent(self.busy_seen, BUSY_HOLD) {
            Status::Working
        } else if self.ran {
            Status::Done
        } else {
            Status::Idle
        }
    }

    /// termio submitted a command line at the prompt at `now`.
    pub fn submitted(&mut self, now: Instant) {
        self.ran = true;
        self.submitted = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One scripted observation: at `ms`, either a submission or a look at the terminal.
    enum Step {
        Submit,
        Look { busy: bool, expect: Status },
    }
    use Step::*;

    fn look(busy: bool, expect: Status) -> Step {
        Look { busy, expect }
    }

    #[test]
    fn scripted_shell_sessions() {
        use Status::*;
        let cases: &[(&str, &[(u64, Step)])] = &[
            ("a fresh shell is idle", &[(0, look(false, Idle))]),
            (
                "a command holding the terminal is working, then done",
                &[
                    (0, look(false, Idle)),
                    (100, look(true, Working)),
                    (200, look(false, Working)), // within BUSY_HOLD
                    (500, look(false, Done)),
                ],
            ),
            (
                "a submitted line is working before its command is seen",
                &[
                    (0, Submit),
                    (100, look(false, Working)),
                    (499, look(false, Working)),
                    (500, look(false, Done)),
                ],
            ),
            (
                "seeing the command ends the submit grace",
                &[
                    (0, Submit),
                    (50, look(true, Working)),
                    (350, look(false, Done)),
                ],
            ),
            (
                "a loop of short commands does not flicker",
                &[
                    (0, look(true, Working)),
                    (100, look(false, Working)),
                    (200, look(true, Working)),
                    (300, look(false, Working)),
                    (600, look(false, Done)),
                ],
            ),
        ];
        for (name, steps) in cases {
            let t0 = Instant::now();
            let mut shell = Shell::default();
            for (ms, step) in steps.iter() {
                let now = t0 + Duration::from_millis(*ms);
                match step {
                    Submit => shell.submitted(now),
                    Look { busy, expect } => {
                        assert_eq!(shell.observe(*busy, now), *expect, "{name}, at {ms} ms")
                    }
                }
            }
        }
    }
}
