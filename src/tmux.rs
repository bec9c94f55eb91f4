//! Reading an existing tmux pane (`console2svg tmux capture`): its cells through
//! `tmux capture-pane -p -e` (text with SGR colours and attributes, wide characters once), its
//! cursor, size and screen through `tmux display-message -p` formats, replayed into an
//! [`Emulator`] of the pane's size, so the [`Screen`] renders exactly like a capture of the same
//! program (shared/spec/console2svg-contract.md, "tmux").
//!
//! `capture-pane -e` gives coloured lines, not modes: the cursor position and visibility and
//! whether the pane shows its alternate screen come from the formats `#{cursor_x}`,
//! `#{cursor_y}`, `#{pane_width}`, `#{pane_height}`, `#{alternate_on}`, `#{cursor_flag}` and
//! `#{history_size}` (tmux(1), "FORMATS"). Unix only, like tmux.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::term::{Emulator, Screen};

/// Which tmux server to talk to (tmux's `-L` / `-S`; neither: the default server, or the one
/// `$TMUX` names when run inside tmux).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Server {
    /// The default socket (or `$TMUX`).
    #[default]
    Default,
    /// `tmux -L NAME`: a named socket in tmux's socket directory.
    Name(String),
    /// `tmux -S PATH`: a socket path.
    Path(PathBuf),
}

/// How much of the pane's history to include above its screen (`--history [N]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// The visible screen only.
    None,
    /// At most this many history rows above the screen.
    Rows(usize),
    /// All of the pane's history.
    All,
}

/// What the display formats tell about a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaneState {
    /// Cursor column and row in the visible screen, 0-based.
    pub cursor_x: usize,
    pub cursor_y: usize,
    /// Pane size in cells.
    pub width: usize,
    pub height: usize,
    /// The pane shows its alternate screen (full-screen programs: vim, less).
    pub alternate: bool,
    /// The program shows the cursor (DECTCEM).
    pub cursor_visible: bool,
    /// Rows of history above the screen.
    pub history_size: usize,
}

/// The `display-message -p` format [`PaneState::parse`] reads.
pub const STATE_FORMAT: &str = "#{cursor_x},#{cursor_y},#{pane_width},#{pane_height},#{alternate_on},#{cursor_flag},#{history_size}";

impl PaneState {
    /// Parses [`STATE_FORMAT`]'s output: seven comma-separated numbers.
    ///
    /// Errors: a message quoting the line when it is not that.
    pub fn parse(line: &str) -> Result<PaneState, String> {
        let bad = || format!("tmux answered '{}' for the pane's state", line.trim());
        let n: Vec<usize> = line
            .trim()
            .split(',')
            .map(|v| v.parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let [cursor_x, cursor_y, width, height, alternate, cursor, history_size] = n[..] else {
            return Err(bad());
        };
        if width == 0 || height == 0 {
            return Err(bad());
        }
        Ok(PaneState {
            cursor_x,
            cursor_y,
            width,
            height,
            alternate: alternate != 0,
            cursor_visible: cursor != 0,
            history_size,
        })
    }
}

/// One pane of the server, for the picker (`list-panes -a`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pane {
    /// The pane id (`%3`), a target that never changes while the pane lives.
    pub id: String,
    /// `session:window.pane`.
    pub name: String,
    /// `WxH` cells.
    pub size: String,
    /// The command the pane runs now.
    pub command: String,
}

/// Why a pane could not be read. `Display` is one line naming the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TmuxError {
    /// `tmux` is not installed (not on `PATH`).
    NotInstalled,
    /// No server runs on the socket.
    NoServer(String),
    /// The target names no pane (tmux's own message in the second field).
    NoPane(String, String),
    /// tmux failed otherwise, or answered something unreadable.
    Failed(String),
}

impl std::fmt::Display for TmuxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TmuxError::NotInstalled => f.write_str("tmux is not installed (no `tmux` on PATH)"),
            TmuxError::NoServer(m) => write!(f, "no tmux server is running ({m})"),
            TmuxError::NoPane(t, m) => write!(f, "no tmux pane '{t}' ({m})"),
            TmuxError::Failed(m) => write!(f, "tmux failed: {m}"),
        }
    }
}

impl std::error::Error for TmuxError {}

impl Server {
    /// Runs `tmux [-L|-S] args…` and returns its stdout; `target` is named in errors.
    fn run(&self, args: &[&str], target: &str) -> Result<Vec<u8>, TmuxError> {
        let mut cmd = Command::new("tmux");
        match self {
            Server::Default => {}
            Server::Name(n) => {
                cmd.arg("-L").arg(n);
            }
            Server::Path(p) => {
                cmd.arg("-S").arg(p);
            }
        }
        let out = cmd
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => TmuxError::NotInstalled,
                _ => TmuxError::Failed(format!("cannot run tmux: {e}")),
            })?;
        if out.status.success() {
            return Ok(out.stdout);
        }
        let msg = String::from_utf8_lossy(&out.stderr)
            .trim()
            .replace('\n', "; ");
        Err(
            if msg.starts_with("no server running") || msg.starts_with("error connecting to") {
                TmuxError::NoServer(msg)
            } else if msg.starts_with("can't find") {
                TmuxError::NoPane(target.to_string(), msg)
            } else {
                TmuxError::Failed(msg)
            },
        )
    }

    /// Whether `target` names a pane. `display-message -t` falls back to some pane (or to
    /// empty fields) for a target that names none; `capture-pane` does not, so one row of it
    /// is read.
    ///
    /// Errors: [`TmuxError::NoPane`] (or another [`TmuxError`]).
    pub fn check_pane(&self, target: &str) -> Result<(), TmuxError> {
        self.run(
            &["capture-pane", "-p", "-S", "0", "-E", "0", "-t", target],
            target,
        )
        .map(drop)
    }

    /// The pane `target`'s state ([`STATE_FORMAT`]).
    ///
    /// Errors: [`TmuxError`].
    pub fn pane_state(&self, target: &str) -> Result<PaneState, TmuxError> {
        let out = self.run(
            &["display-message", "-p", "-t", target, STATE_FORMAT],
            target,
        )?;
        PaneState::parse(&String::from_utf8_lossy(&out)).map_err(TmuxError::Failed)
    }

    /// The command the pane `target` runs now (`#{pane_current_command}`), for the `-c` header.
    ///
    /// Errors: [`TmuxError`].
    pub fn pane_command(&self, target: &str) -> Result<String, TmuxError> {
        self.check_pane(target)?;
        let out = self.run(
            &[
                "display-message",
                "-p",
                "-t",
                target,
                "#{pane_current_command}",
            ],
            target,
        )?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// Every pane of the server (`list-panes -a`).
    ///
    /// Errors: [`TmuxError`].
    pub fn panes(&self) -> Result<Vec<Pane>, TmuxError> {
        let format = "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_width}x#{pane_height}\t#{pane_current_command}";
        let out = self.run(&["list-panes", "-a", "-F", format], "")?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|l| {
                let mut f = l.splitn(4, '\t');
                Some(Pane {
                    id: f.next()?.to_string(),
                    name: f.next()?.to_string(),
                    size: f.next()?.to_string(),
                    command: f.next().unwrap_or("").to_string(),
                })
            })
            .collect())
    }

    /// The pane `target` as a [`Screen`] of its size, with `history` rows of its history as
    /// scrollback above it (see [`replay`]).
    ///
    /// Errors: [`TmuxError`]; the state is read before and after the cells, and a pane that
    /// changed size in between is read again (at most three times).
    pub fn capture(&self, target: &str, history: History) -> Result<Screen, TmuxError> {
        self.check_pane(target)?;
        let mut state = self.pane_state(target)?;
        for _ in 0..3 {
            let start = match history {
                History::None => None,
                History::All => Some("-".to_string()),
                History::Rows(n) => Some(format!("-{}", n.min(state.history_size))),
            };
            let mut args = vec!["capture-pane", "-p", "-e", "-N", "-t", target];
            if let Some(s) = &start {
                args.extend(["-S", s.as_str()]);
            }
            let cells = self.run(&args, target)?;
            let after = self.pane_state(target)?;
            if (after.width, after.height) == (state.width, state.height) {
                return Ok(replay(&after, &cells));
            }
            state = after;
        }
        Err(TmuxError::Failed(format!(
            "the pane '{target}' kept changing size while it was read"
        )))
    }
}

/// `capture-pane -p -e` output (`lines`: one line per row, `\n`-terminated, history first)
/// replayed into an emulator of the pane's size: the rows written one under the other (rows
/// above the screen scroll into the scrollback), then the cursor placed and shown or hidden as
/// `state` says. On the alternate screen the rows go to the emulator's alternate screen, as
/// they did for the program. Pure: the same input gives the same screen.
pub fn replay(state: &PaneState, lines: &[u8]) -> Screen {
    let lines = lines.strip_suffix(b"\n").unwrap_or(lines);
    let count = lines.split(|&b| b == b'\n').count();
    let history = count.saturating_sub(state.height);
    let mut e = Emulator::with_scrollback(state.width, state.height, history);
    // tmux measures widths per code point, like wcwidth: so does the replay.
    e.set_grapheme_clusters(false);
    if state.alternate {
        e.advance(b"\x1b[?1049h");
    }
    for (i, line) in lines.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            // SGR state carries over lines in tmux's output; a CR LF does not reset it.
            e.advance(b"\r\n");
        }
        e.advance(line);
    }
    e.advance(b"\x1b[0m");
    e.advance(
        format!(
            "\x1b[{};{}H\x1b[?25{}",
            state.cursor_y.min(state.height - 1) + 1,
            state.cursor_x.min(state.width - 1) + 1,
            if state.cursor_visible { 'h' } else { 'l' }
        )
        .as_bytes(),
    );
    if e.sync_deadline().is_some() {
        e.expire_sync();
    }
    e.snapshot_with_scrollback()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(w: usize, h: usize) -> PaneState {
        PaneState {
            cursor_x: 2,
            cursor_y: 1,
            width: w,
            height: h,
            alternate: false,
            cursor_visible: true,
            history_size: 0,
        }
    }

    #[test]
    fn the_state_format_parses_and_bad_answers_are_errors() {
        let s = PaneState::parse("4,0,60,12,1,0,7\n").unwrap();
        assert_eq!((s.cursor_x, s.cursor_y, s.width, s.height), (4, 0, 60, 12));
        assert!(s.alternate && !s.cursor_visible);
        assert_eq!(s.history_size, 7);
        for bad in [
            "",
            "1,2,3",
            "a,0,60,12,1,0,7",
            "0,0,0,12,0,1,0",
            "1,2,3,4,5,6,7,8",
        ] {
            assert!(PaneState::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn rows_colours_wide_characters_and_the_cursor_are_replayed() {
        let out = b"\x1b[93m  1 \x1b[39mab\xe4\xb8\x96c\n\x1b[1;38;5;81mxy\n\n";
        let s = replay(&state(10, 3), out);
        assert_eq!(s.width, 10);
        assert_eq!(s.rows.len(), 3);
        assert_eq!(s.text(), "  1 ab世c\nxy");
        assert_eq!((s.cursor.row, s.cursor.col, s.cursor.visible), (1, 2, true));
        let row0 = &s.rows[0];
        assert_ne!(row0[0].fg, row0[4].fg, "SGR 93 then 39");
        assert_eq!(row0[6].width, 2, "the wide character takes two cells");
        let row1 = &s.rows[1];
        assert!(row1[0].bold, "bold carried from the SGR");
    }

    #[test]
    fn history_rows_become_scrollback_and_the_alternate_screen_is_kept() {
        let out = b"h1\nh2\nr1\nr2\n";
        let s = replay(&state(5, 2), out);
        assert_eq!(s.scrollback_rows, 2);
        assert_eq!(s.text(), "h1\nh2\nr1\nr2");
        assert_eq!(s.viewport_rows(), 2..4);
        let alt = PaneState {
            alternate: true,
            cursor_visible: false,
            ..state(5, 2)
        };
        let s = replay(&alt, b"a\nb\n");
        assert!(s.modes.alternate_screen);
        assert!(!s.cursor.visible);
    }
}
