//! [`Emulator`]: alacritty_terminal's `Term` driven by vte's `Processor`, answering the terminal
//! queries a program sends and producing owned [`Screen`] snapshots.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alacritty_terminal::event::{Event, EventListener, WindowSize};
use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell as TermCell, Flags};
use alacritty_terminal::term::{Config, Term, TermMode};
use alacritty_terminal::vte::ansi::{
    self, CursorShape as TermCursorShape, NamedColor, Processor, Timeout,
};

use super::colours::{self, Action, Slot, DYNAMICS, SPECIALS};
use super::dec::{DecState, PROTECTED};
use super::flood;
use super::guard::{self, CursorRow, Guarded, WidthPolicy, MAX_SIZE};
use super::hibernate::FrozenGrid;
use super::screen::{
    xterm_256, Cell, Color, Cursor, CursorShape, Link, Modes, Rgb, Screen, Underline,
};
use super::scrollback::Scrollback;
use super::sniff::{Control, Found, ProgramStatus, Sniffer};

/// Rows of scrollback an emulator keeps unless told otherwise ([`Emulator::with_scrollback`]):
/// what a one-shot capture renders above the screen (sessions keep fewer by default).
pub const SCROLLBACK_LINES: usize = 10_000;

/// The most rows of scrollback an emulator keeps (`--scrollback`, `terminal.scrollback`).
pub const MAX_SCROLLBACK: usize = 100_000;

/// At most this many cells of the scrollback's newest lines (at least two screens of rows)
/// take part in a width change's reflow with the screen in alacritty's grid: a longer line
/// running onto the screen is re-wrapped in two parts. 500 000 cells are 12 MB for the time of
/// the resize.
const REFLOW_CELLS: usize = 500_000;

/// How long a synchronized-output frame (DEC private mode 2026) may stay open before it is
/// ended by force: 1 s, as kitty, WezTerm, Ghostty and foot allow (vte's own limit, 150 ms,
/// cut frames that a busy program took a little longer to write). Each `CSI ? 2026 h` starts
/// the time again.
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(1);

/// The parser's clock for synchronized-output frames: a frame opened now ends by force at
/// [`SYNC_TIMEOUT`] from now, whatever vte asks for.
#[derive(Debug, Default)]
struct FrameClock {
    deadline: Option<Instant>,
}

impl Timeout for FrameClock {
    fn set_timeout(&mut self, _vte_limit: Duration) {
        self.deadline = Some(Instant::now() + SYNC_TIMEOUT);
    }

    fn clear_timeout(&mut self) {
        self.deadline = None;
    }

    fn pending_timeout(&self) -> bool {
        self.deadline.is_some()
    }
}

/// The window a program may ask to iconify or move (xterm's window operations 1, 2 and 3): a
/// session has no window, so the state asked for is kept and reported back (`CSI 11 t`,
/// `CSI 13 t`), and nothing else changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Window {
    iconified: bool,
    /// The window's position on the screen in pixels, x then y.
    position: (u16, u16),
}

/// The primary device attributes (DA1) answer: VT220 (62) with ANSI colour (22).
const DA1_ANSWER: &[u8] = b"\x1b[?62;22c";

/// The answer to the OSC 7501 `?` probe, before the terminator (the probe's own BEL or ST):
/// "status reports are understood here".
const STATUS_PROBE_ANSWER: &[u8] = b"\x1b]7501;1";

/// The SGR parameters that select `cell`'s attributes and colours from the default, starting
/// with `0` (as xterm reports them to DECRQSS): 1 bold, 2 faint, 3 italic, 4 underline (`4:2`
/// double, `4:3` curly, `4:4` dotted, `4:5` dashed), 5 blink, 7 inverse, 8 invisible, 9
/// crossed out; colours as 30–37/90–97 (40–47/100–107), `38;5;n` or `38;2;r;g;b`.
fn sgr_of(cell: &TermCell) -> String {
    let mut out = vec!["0".to_string()];
    let f = cell.flags;
    for (flag, code) in [
        (Flags::BOLD, "1"),
        (Flags::DIM, "2"),
        (Flags::ITALIC, "3"),
        (Flags::UNDERLINE, "4"),
        (Flags::DOUBLE_UNDERLINE, "4:2"),
        (Flags::UNDERCURL, "4:3"),
        (Flags::DOTTED_UNDERLINE, "4:4"),
        (Flags::DASHED_UNDERLINE, "4:5"),
        (Flags::INVERSE, "7"),
        (Flags::HIDDEN, "8"),
        (Flags::STRIKEOUT, "9"),
    ] {
        if f.contains(flag) {
            out.push(code.to_string());
        }
    }
    let colour = |c: ansi::Color, base: u16| -> Option<String> {
        match c {
            ansi::Color::Named(n) if (n as usize) < 8 => Some((base + n as u16).to_string()),
            ansi::Color::Named(n) if (n as usize) < 16 => {
                Some((base + 60 + n as u16 - 8).to_string())
            }
            ansi::Color::Named(_) => None,
            ansi::Color::Indexed(i) => Some(format!("{};5;{i}", base + 8)),
            ansi::Color::Spec(rgb) => Some(format!("{};2;{};{};{}", base + 8, rgb.r, rgb.g, rgb.b)),
        }
    };
    out.extend(colour(cell.fg, 30));
    out.extend(colour(cell.bg, 40));
    out.join(";")
}

/// The kitty keyboard protocol's progressive-enhancement flags in effect (bit 1 disambiguate,
/// 2 event types, 4 alternate keys, 8 all keys as escape codes, 16 associated text).
fn kitty_flags(mode: TermMode) -> u8 {
    [
        (TermMode::DISAMBIGUATE_ESC_CODES, 1),
        (TermMode::REPORT_EVENT_TYPES, 2),
        (TermMode::REPORT_ALTERNATE_KEYS, 4),
        (TermMode::REPORT_ALL_KEYS_AS_ESC, 8),
        (TermMode::REPORT_ASSOCIATED_TEXT, 16),
    ]
    .iter()
    .filter(|(m, _)| mode.contains(*m))
    .fold(0, |acc, (_, bit)| acc | bit)
}

/// How many entries the title stack holds (xterm's 10).
const TITLE_STACK: usize = 10;

/// Cell size in px reported to `CSI 14 t` (text area size in pixels) queries.
const REPORTED_CELL_PX: (u16, u16) = (8, 18);

/// The colours the emulator reports to OSC 4/10/11 colour queries (normally the theme's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryColors {
    pub foreground: Rgb,
    pub background: Rgb,
    pub ansi: [Rgb; 16],
}

impl Default for QueryColors {
    /// The `dark` theme (shared/spec/themes.md §1).
    fn default() -> QueryColors {
        let h = |v: u32| Rgb::new((v >> 16) as u8, (v >> 8) as u8, v as u8);
        QueryColors {
            foreground: h(0xd4d4d4),
            background: h(0x1e1e1e),
            ansi: [
                0x1e1e1e, 0xcd3131, 0x0dbc79, 0xe5e510, 0x2472c8, 0xbc3fbc, 0x11a8cd, 0xe5e5e5,
                0x666666, 0xf14c4c, 0x23d18b, 0xf5f543, 0x3b8eea, 0xd670d6, 0x29b8db, 0xffffff,
            ]
            .map(h),
        }
    }
}

/// Events the terminal raised while parsing; drained after every `advance`.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Event>>>);

impl EventListener for Events {
    fn send_event(&self, event: Event) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(event);
    }
}

#[derive(Clone, Copy)]
struct Size {
    cols: usize,
    rows: usize,
}

impl Size {
    /// `cols` × `rows`, each clamped to 1–[`MAX_SIZE`] (see [`super::guard`]).
    fn clamped(cols: usize, rows: usize) -> Size {
        Size {
            cols: cols.clamp(1, MAX_SIZE),
            rows: rows.clamp(1, MAX_SIZE),
        }
    }
}

impl Dimensions for Size {
    fn total_lines(&self) -> usize {
        self.rows
    }
    fn screen_lines(&self) -> usize {
        self.rows
    }
    fn columns(&self) -> usize {
        self.cols
    }
}

/// A terminal emulator: feed it bytes, send [`Emulator::take_replies`] back to the program, take
/// [`Screen`] snapshots.
///
/// Synchronized output (DEC private mode 2026): while a frame is open the bytes are buffered
/// by the parser, so snapshots always show the last complete frame. The owner must call
/// [`Emulator::expire_sync`] once [`Emulator::sync_deadline`] has passed ([`SYNC_TIMEOUT`]
/// after the frame opened), or output after an unterminated `CSI ?2026h` never shows; frames
/// ended so are counted ([`Emulator::forced_sync_ends`]).
///
/// Widths: clusters take the cells of the grapheme policy ([`super::cluster`], DEC private
/// mode 2027) unless the program resets the mode or [`Emulator::set_grapheme_clusters`] says
/// otherwise.
pub struct Emulator {
    /// alacritty's terminal, keeping no history of its own: rows scrolling off the primary
    /// screen go to `scrollback`.
    term: Term<Events>,
    parser: Processor<FrameClock>,
    scrollback: Scrollback,
    width: WidthPolicy,
    /// Synchronized frames ended by force (their deadline passed, or the output ended).
    forced_sync_ends: u64,
    /// The scroll region, as alacritty keeps it (see [`Guarded::region`]).
    region: std::ops::Range<i32>,
    /// The DEC functions done in our layer (margins; see [`super::dec`]).
    dec: DecState,
    events: Events,
    replies: Vec<u8>,
    colors: QueryColors,
    /// The dynamic colours (OSC 10–19) the program set; palette entries it set are kept in
    /// alacritty's terminal, where snapshots read them.
    dynamic: [Option<Rgb>; DYNAMICS],
    /// The special colours (OSC 5, or OSC 4 with 256–260) the program set.
    special: [Option<Rgb>; SPECIALS],
    title: Option<String>,
    /// The icon label (OSC 0, OSC 1), which xterm keeps apart from the window title.
    icon: Option<String>,
    /// The title stack (`CSI 22 ; Ps t` pushes, `CSI 23 ; Ps t` pops), as xterm keeps it:
    /// each push saves the icon label and the window title, a pop takes the top entry and
    /// restores the one(s) it names; at most [`TITLE_STACK`] entries (the oldest go).
    titles: Vec<(Option<String>, Option<String>)>,
    /// The window state the program asked for (see [`Emulator::window_report`]).
    window: Window,
    bells: u64,
    sniffer: Sniffer,
    program_status: Option<ProgramStatus>,
    status_reports: u64,
    line_feeds: u64,
    progress: Option<(u64, u8)>,
    /// Whether the parser is surely in its ground state (no sequence open) after the output so
    /// far ([`flood::ends_in_ground`]); a fast-forward needs it.
    ground: bool,
    fast_forwarded: u64,
    /// The shown screen's grid while the emulator hibernates ([`Emulator::hibernate`]); the
    /// terminal then holds a 1 × 1 stand-in.
    frozen: Option<Box<FrozenGrid>>,
    /// The start of a UTF-8 character that the last bytes ended in, held back until the rest
    /// comes ([`incomplete_utf8_tail`]).
    utf8_tail: Vec<u8>,
}

/// Lines [`Emulator::advance`] emulates one by one, at most, to find the parser's ground
/// state again before a flood it could skip (see `flood::ends_in_ground`).
const RESYNC_LINES: usize = 16;

impl Emulator {
    /// A terminal of `cols` × `rows` cells (each clamped to 1–[`MAX_SIZE`]), default modes,
    /// empty scrollback of at most [`SCROLLBACK_LINES`] rows.
    pub fn new(cols: usize, rows: usize) -> Emulator {
        Emulator::with_scrollback(cols, rows, SCROLLBACK_LINES)
    }

    /// [`Emulator::new`] keeping at most `scrollback` rows above the screen (clamped to
    /// [`MAX_SCROLLBACK`]; 0 keeps none). Allocates the screen only: the scrollback grows as
    /// rows scroll off, compactly (see [`Emulator::history_size`]).
    pub fn with_scrollback(cols: usize, rows: usize, scrollback: usize) -> Emulator {
        let events = Events::default();
        let config = Config {
            scrolling_history: 0,
            // Tracks the progressive-enhancement stack and answers `CSI ? u`; keys are encoded
            // by its flags (see `keys`).
            kitty_keyboard: true,
            ..Config::default()
        };
        let size = Size::clamped(cols, rows);
        let mut term = Term::new(config, &size, events.clone());
        guard::set_alternate(&mut term, 1, 1);
        Emulator {
            term,
            parser: Processor::new(),
            scrollback: Scrollback::new(scrollback.min(MAX_SCROLLBACK), size.cols),
            width: WidthPolicy {
                graphemes: true,
                default: true,
            },
            forced_sync_ends: 0,
            region: 0..size.rows as i32,
            dec: DecState::default(),
            events,
            replies: Vec::new(),
            colors: QueryColors::default(),
            dynamic: [None; DYNAMICS],
            special: [None; SPECIALS],
            title: None,
            icon: None,
            titles: Vec::new(),
            window: Window::default(),
            bells: 0,
            sniffer: Sniffer::default(),
            program_status: None,
            line_feeds: 0,
            status_reports: 0,
            progress: None,
            ground: true,
            fast_forwarded: 0,
            frozen: None,
            utf8_tail: Vec::new(),
        }
    }

    /// Freezes the shown screen into a compact form ([`super::hibernate`]: its text and style
    /// runs, about 2–4 KB at 100 × 24 instead of 57.6 KB of cells) until the next call that
    /// changes the terminal ([`Emulator::advance`], [`Emulator::resize`], ...), which thaws
    /// it first ([`Emulator::wake`]). Reads ([`Emulator::snapshot`], [`Emulator::cursor`],
    /// ...) answer from the frozen screen without waking it. Nothing observable changes: the
    /// thawed grid equals the frozen one cell for cell, cursors included. For a host's idle
    /// sessions.
    pub fn hibernate(&mut self) {
        if self.frozen.is_none() {
            let grid = std::mem::replace(self.term.grid_mut(), Grid::new(1, 1, 0));
            self.frozen = Some(Box::new(FrozenGrid::freeze(&grid)));
        }
    }

    /// Thaws a screen frozen by [`Emulator::hibernate`] (nothing happens when awake).
    pub fn wake(&mut self) {
        if let Some(frozen) = self.frozen.take() {
            *self.term.grid_mut() = frozen.thaw();
        }
    }

    /// The terminal's grid as it is (for the hibernation tests).
    #[cfg(test)]
    pub(super) fn term_grid(&self) -> &Grid<TermCell> {
        self.term.grid()
    }

    /// Whether the shown screen is frozen ([`Emulator::hibernate`]).
    pub fn is_hibernating(&self) -> bool {
        self.frozen.is_some()
    }

    /// The shown screen's grid: the terminal's, or a thawed copy while hibernating.
    fn grid(&self) -> Cow<'_, Grid<TermCell>> {
        match &self.frozen {
            Some(frozen) => Cow::Owned(frozen.thaw()),
            None => Cow::Borrowed(self.term.grid()),
        }
    }

    /// Selects the width policy: `true` (the default) for grapheme clusters as modern
    /// terminals take them (DEC private mode 2027 set: see [`super::cluster`]), `false` for
    /// every code point taking its own `wcwidth` cells (the mode reset). It is what a reset
    /// (RIS) comes back to too; the program may change it with `CSI ? 2027 h/l`.
    pub fn set_grapheme_clusters(&mut self, on: bool) {
        self.width = WidthPolicy {
            graphemes: on,
            default: on,
        };
    }

    /// Whether grapheme clusters take the policy's widths now (DEC private mode 2027).
    pub fn grapheme_clusters(&self) -> bool {
        self.width.graphemes
    }

    /// How many synchronized-output frames were ended by force ([`Emulator::expire_sync`]
    /// with a frame open): the program left a frame open past [`SYNC_TIMEOUT`], or its output
    /// ended inside one. Such a frame was shown as far as it had come.
    pub fn forced_sync_ends(&self) -> u64 {
        self.forced_sync_ends
    }

    /// Sets the colours reported to OSC 4/10/11 queries.
    pub fn set_query_colors(&mut self, colors: QueryColors) {
        self.colors = colors;
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        match &self.frozen {
            Some(frozen) => frozen.cols(),
            None => self.term.columns(),
        }
    }

    /// Viewport rows.
    pub fn rows(&self) -> usize {
        match &self.frozen {
            Some(frozen) => frozen.lines(),
            None => self.term.screen_lines(),
        }
    }

    /// Parses `bytes` (any split: escape sequences may straddle calls) and queues the replies.
    ///
    /// XTVERSION and OSC 7501 (which alacritty ignores) are handled here, in stream order:
    /// the bytes before such a sequence are parsed and answered first, so replies keep the
    /// order of the queries (a program probing OSC 7501 then DA1 gets the answers in that
    /// order).
    ///
    /// Output bound to scroll out of the scrollback unseen is not emulated (see
    /// [`super::flood`]): the screen, scrollback, pen and replies come out as if it were.
    ///
    /// A UTF-8 character split between two calls is held back until its last byte comes, and
    /// parsed whole: vte 0.15 completes a split character by looking at up to 3 more bytes,
    /// and when those hold the character, then an ASCII byte, then the start of another
    /// character, it drops the ASCII byte (a tab after `é`, for one).
    pub fn advance(&mut self, bytes: &[u8]) {
        self.wake();
        let joined = super::after_carry(&mut self.utf8_tail, bytes);
        let bytes: &[u8] = &joined;
        let (bytes, tail) = bytes.split_at(bytes.len() - incomplete_utf8_tail(bytes));
        self.utf8_tail.extend_from_slice(tail);
        self.advance_whole(bytes);
    }

    /// [`Emulator::advance`] for bytes that end on a character boundary.
    fn advance_whole(&mut self, bytes: &[u8]) {
        let mut feeds = memchr::memchr_iter(b'\n', bytes).count();
        self.line_feeds += feeds as u64;
        let mut rest = bytes;
        let mut resync = RESYNC_LINES;
        while !rest.is_empty() {
            let keep = self.fast_forward_keep();
            if !self.ground && resync > 0 && feeds > keep && rest.len() >= flood::MIN_SKIP {
                // Output before this was cut off inside a sequence (a batch of held output
                // ends where the program's write did), or the state is unsure: the line that
                // finishes the sequence is emulated, and a line ending on a whole sequence
                // puts the parser back in its ground state, where the flood can be skipped.
                resync -= 1;
                let upto = memchr::memchr(b'\n', rest).map_or(rest.len(), |p| p + 1);
                let part = &rest[..upto];
                self.advance_parsed(part);
                self.ground = flood::ends_in_ground(false, part);
                feeds -= usize::from(part.ends_with(b"\n"));
                rest = &rest[upto..];
                continue;
            }
            if feeds <= keep || rest.len() < flood::MIN_SKIP || !self.may_fast_forward() {
                self.advance_parsed(rest);
                self.ground = flood::ends_in_ground(self.ground, rest);
                return;
            }
            let scan = flood::plan(rest, keep);
            let from = match &scan.skip {
                Some(skip) => {
                    self.fast_forwarded += skip.cut as u64;
                    self.advance_parsed(&skip.stand_in(self.rows()));
                    skip.cut
                }
                None => 0,
            };
            // Emulated: from the cut through the line of the barrier (after a skip), else a
            // stretch more, so that a barrier on every line costs few rounds.
            let past = if scan.skip.is_some() {
                0
            } else {
                flood::MIN_SKIP / 4
            };
            let upto = (scan.plain + past).min(rest.len());
            let upto = memchr::memchr(b'\n', &rest[upto..]).map_or(rest.len(), |p| upto + p + 1);
            let part = &rest[from..upto];
            self.advance_parsed(part);
            // The parser was in its ground state at `from` (after the stand-in, or as checked).
            self.ground = flood::ends_in_ground(true, part);
            feeds -= memchr::memchr_iter(b'\n', &rest[..upto]).count();
            rest = &rest[upto..];
        }
    }

    /// Whether the terminal is where a fast-forward cannot show: parser in its ground state,
    /// primary screen, scroll region and left/right margins the whole screen, no reverse
    /// wraparound (a BS could climb a row), no synchronized frame open.
    fn may_fast_forward(&self) -> bool {
        self.ground
            && self.region == (0..self.rows() as i32)
            && self.dec.horizontal(self.cols()) == (0..self.cols())
            && !self.dec.reverse_wrap
            && !self.term.mode().contains(TermMode::ALT_SCREEN)
            && self.sync_deadline().is_none()
    }

    /// How many line feeds of plain output must follow a stretch for the fast-forward to skip
    /// it ([`super::flood`]): the screen's rows, the scrollback's, and a margin. A batch of
    /// output with many times this many lines is mostly skipped.
    pub fn fast_forward_keep(&self) -> usize {
        self.rows() + self.scrollback_limit() + flood::MARGIN_ROWS
    }

    /// Bytes of output so far that were not emulated because they scrolled out of the
    /// scrollback unseen ([`super::flood`]).
    pub fn fast_forwarded(&self) -> u64 {
        self.fast_forwarded
    }

    /// [`Emulator::advance`] without the fast-forward: every byte is parsed.
    fn advance_parsed(&mut self, bytes: &[u8]) {
        let mut from = 0;
        for (span, found) in self.sniffer.scan(bytes) {
            let end = span.end.max(from);
            if let Found::Control(c) = &found {
                if c.final_byte == b's' && c.prefix.is_none() {
                    // `CSI Pl ; Pr s`: DECSLRM or SCOSC, which alacritty's parser dispatches
                    // as a cursor save without its parameters: they are put where the guard
                    // finds them when the parser dispatches it.
                    let start = span.start.clamp(from, end);
                    self.parse(&bytes[from..start]);
                    self.dec.pending_slrm = Some(c.params.clone());
                    self.parse(&bytes[start..end]);
                    self.dec.pending_slrm = None;
                    from = end;
                    continue;
                }
            }
            self.parse(&bytes[from..end]);
            self.drain_events();
            from = end;
            self.apply(found);
        }
        self.parse(&bytes[from..]);
    }

    /// Parses `bytes` into the terminal through its guards, and takes the events raised.
    fn parse(&mut self, bytes: &[u8]) {
        let mut handler = Guarded {
            term: &mut self.term,
            scrollback: &mut self.scrollback,
            region: &mut self.region,
            width: &mut self.width,
            listener: &self.events,
            dec: &mut self.dec,
        };
        self.parser.advance(&mut handler, bytes);
        self.drain_events();
    }

    /// The terminal with its guards, as the parser drives it.
    fn guarded(&mut self) -> Guarded<'_, Events> {
        Guarded {
            term: &mut self.term,
            scrollback: &mut self.scrollback,
            region: &mut self.region,
            width: &mut self.width,
            listener: &self.events,
            dec: &mut self.dec,
        }
    }

    fn apply(&mut self, found: Found) {
        match found {
            Found::XtVersion => {
                let reply = format!("\x1bP>|console2svg {}\x1b\\", env!("CARGO_PKG_VERSION"));
                self.replies.extend_from_slice(reply.as_bytes());
            }
            Found::TertiaryAttributes => {
                // DECRPTUI with xterm's unit id, eight zero hex digits (ctlseqs, "CSI = Ps c").
                self.replies.extend_from_slice(b"\x1bP!|00000000\x1b\\");
            }
            Found::Checksum { id, area } => {
                let sum = self.checksum(area);
                let reply = format!("\x1bP{id}!~{sum:04X}\x1b\\");
                self.replies.extend_from_slice(reply.as_bytes());
            }
            Found::Setting(setting) => {
                let reply = match self.setting(&setting) {
                    Some(value) => [b"\x1bP1$r", value.as_bytes(), b"\x1b\\"].concat(),
                    None => b"\x1bP0$r\x1b\\".to_vec(),
                };
                self.replies.extend_from_slice(&reply);
            }
            Found::StatusProbe { bel } => {
                self.replies.extend_from_slice(STATUS_PROBE_ANSWER);
                self.replies
                    .extend_from_slice(if bel { b"\x07" } else { b"\x1b\\" });
            }
            Found::Status(status) => {
                self.program_status = Some(status);
                self.status_reports += 1;
            }
            Found::SyncQuery if self.dec.level.is_some_and(|l| l < 3) => {
                // DECRQM is refused below conformance level 3, as for every other mode.
            }
            Found::SyncQuery => {
                // Whether a frame is open where the query stands in the stream: the bytes
                // before it are parsed (or held back in the open frame).
                let state = if self.sync_deadline().is_some() { 1 } else { 2 };
                let reply = format!("\x1b[?2026;{state}$y");
                self.replies.extend_from_slice(reply.as_bytes());
            }
            Found::Progress(state) => {
                let n = self.progress.map_or(0, |p| p.0);
                self.progress = Some((n + 1, state));
            }
            Found::Control(c) if c.final_byte == b't' && c.intermediate.is_none() => {
                self.window_report(&c)
            }
            Found::Control(c) => {
                self.guarded().control(&c);
                self.drain_events();
            }
            Found::BackIndex => {
                self.guarded().back_index();
                self.drain_events();
            }
            Found::ForwardIndex => {
                self.guarded().forward_index();
                self.drain_events();
            }
            Found::IconLabel(label) => self.icon = Some(label),
            Found::Colour { code, body, bel } => {
                for action in colours::actions(code, &body) {
                    self.colour_action(action, bel);
                }
            }
            Found::Capability(names) => self.capabilities(&names),
            Found::FullReset => {
                self.dynamic = [None; DYNAMICS];
                self.special = [None; SPECIALS];
            }
            Found::StartProtected => self.guarded().guarded_area(true),
            Found::EndProtected => self.guarded().guarded_area(false),
        }
    }

    /// Carries out one thing a colour control asks for; a query's answer ends as the control
    /// did (BEL when `bel`, else ST).
    fn colour_action(&mut self, action: Action, bel: bool) {
        use alacritty_terminal::vte::ansi::Handler;
        match action {
            Action::Set(Slot::Palette(i), [r, g, b]) => {
                self.term.set_color(i as usize, ansi::Rgb { r, g, b })
            }
            Action::Set(Slot::Special(i), [r, g, b]) => {
                self.special[i as usize] = Some(Rgb::new(r, g, b))
            }
            Action::Set(Slot::Dynamic(i), [r, g, b]) => {
                self.dynamic[i as usize] = Some(Rgb::new(r, g, b))
            }
            Action::Reset(Slot::Palette(i)) => self.term.reset_color(i as usize),
            Action::Reset(Slot::Special(i)) => self.special[i as usize] = None,
            Action::Reset(Slot::Dynamic(i)) => self.dynamic[i as usize] = None,
            Action::ResetPalette => {
                (0..256).for_each(|i| self.term.reset_color(i));
                self.special = [None; SPECIALS];
            }
            Action::ResetSpecials => self.special = [None; SPECIALS],
            Action::Query(slot, prefix) => {
                let c = self.slot_color(slot);
                let end = if bel { "\x07" } else { "\x1b\\" };
                let reply = format!(
                    "\x1b]{prefix};rgb:{0:02x}{0:02x}/{1:02x}{1:02x}/{2:02x}{2:02x}{end}",
                    c.r, c.g, c.b
                );
                self.replies.extend_from_slice(reply.as_bytes());
            }
        }
    }

    /// The colour a slot has now: the program's, else the default. Special colours default
    /// to the foreground (xterm's `XtDefaultForeground`); the dynamic ones to the foreground
    /// (text, cursor, pointer, Tektronix text and cursor, highlight background) or the
    /// background (background, pointer background, Tektronix background, highlight text).
    fn slot_color(&self, slot: Slot) -> Rgb {
        match slot {
            Slot::Palette(i) => self.query_color(i as usize),
            Slot::Special(i) => self.special[i as usize].unwrap_or(self.colors.foreground),
            Slot::Dynamic(i) => self.dynamic[i as usize].unwrap_or(match i {
                1 | 4 | 6 | 9 => self.colors.background,
                _ => self.colors.foreground,
            }),
        }
    }

    /// Answers XTGETTCAP for the hex-encoded `names` (split by `;`): `DCS 1 + r name=value
    /// ST` with each name and value in hex, `;` between them, when every name is known;
    /// else `DCS 0 + r ST`. Known: `Co` and `colors` (256, the palette's size) and `TN` and
    /// `name` (`xterm-256color`, the TERM a session gets).
    fn capabilities(&mut self, names: &[u8]) {
        let hex = |s: &str| s.bytes().map(|b| format!("{b:02X}")).collect::<String>();
        let answers: Option<Vec<String>> = names
            .split(|&b| b == b';')
            .map(|name| {
                let text = std::str::from_utf8(name).ok()?;
                let decoded = (0..text.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
                    .collect::<Option<Vec<u8>>>()?;
                let value = match decoded.as_slice() {
                    b"Co" | b"colors" => "256",
                    b"TN" | b"name" => "xterm-256color",
                    _ => return None,
                };
                Some(format!("{text}={}", hex(value)))
            })
            .collect();
        let reply = match answers {
            Some(pairs) => format!("\x1bP1+r{}\x1b\\", pairs.join(";")),
            None => "\x1bP0+r\x1b\\".to_string(),
        };
        self.replies.extend_from_slice(reply.as_bytes());
    }

    /// The window operations (`CSI Ps ; … t`) beyond the sizes alacritty answers (14, 18),
    /// for a session, which has no window (xterm's ctlseqs, "Window manipulation"): 1 and 2
    /// de-iconify and iconify, 3 moves to `x ; y` (pixels, absent ones 0), kept and reported
    /// by 11 (the state: `CSI 1 t` or `CSI 2 t`) and 13 (the position: `CSI 3 ; x ; y t`);
    /// 15 the screen's size in pixels and 19 in characters (the screen is the terminal:
    /// `CSI 5 ; height ; width t`, `CSI 9 ; rows ; cols t`), 16 the character cell's size
    /// (`CSI 6 ; height ; width t`), 20 and 21 the icon label and window title (`OSC L … ST`,
    /// `OSC l … ST`); and the title stack, 22 push and 23 pop, with `Ps` 0 (both), 1 (the
    /// icon label) or 2 (the window title), in place of alacritty's stack, which knows no icon
    /// label. The operations that resize (4, 8, 9, 10, DECSLPP) do nothing: the size of a
    /// session's terminal is its owner's to set.
    fn window_report(&mut self, c: &Control) {
        let (icon, window) = match c.param(1, 0) {
            0 => (true, true),
            1 => (true, false),
            2 => (false, true),
            _ => (false, false),
        };
        let reply = match c.param(0, 0) {
            22 if icon || window => {
                if self.titles.len() == TITLE_STACK {
                    self.titles.remove(0);
                }
                self.titles.push((self.icon.clone(), self.title.clone()));
                return;
            }
            23 if icon || window => {
                if let Some((label, title)) = self.titles.pop() {
                    if icon {
                        self.icon = label;
                    }
                    if window {
                        self.title = title;
                    }
                }
                return;
            }
            1 | 2 => {
                self.window.iconified = c.param(0, 0) == 2;
                return;
            }
            3 => {
                let at = |i| c.params.get(i).copied().unwrap_or(0);
                self.window.position = (at(1), at(2));
                return;
            }
            11 => format!("\x1b[{}t", 1 + u8::from(self.window.iconified)),
            13 => {
                let (x, y) = self.window.position;
                format!("\x1b[3;{x};{y}t")
            }
            15 => {
                let (w, h) = REPORTED_CELL_PX;
                let (rows, cols) = (self.rows() as u32, self.cols() as u32);
                format!("\x1b[5;{};{}t", rows * h as u32, cols * w as u32)
            }
            16 => format!("\x1b[6;{};{}t", REPORTED_CELL_PX.1, REPORTED_CELL_PX.0),
            19 => format!("\x1b[9;{};{}t", self.rows(), self.cols()),
            20 => format!("\x1b]L{}\x1b\\", self.icon.as_deref().unwrap_or("")),
            21 => format!("\x1b]l{}\x1b\\", self.title.as_deref().unwrap_or("")),
            _ => return,
        };
        self.replies.extend_from_slice(reply.as_bytes());
    }

    /// The DECRQCRA checksum of `area` (top, left, bottom, right; 1-based, inclusive, 0 for the
    /// screen's edge; clamped to the screen): the 16-bit two's complement of the sum of the
    /// cells' character codes, a blank counting as a space and the second cell of a wide
    /// character as nothing. This is xterm's checksum before patch 279 (esctest2's default,
    /// `--xterm-checksum 0`), character codes only: attributes are not added. In origin mode
    /// (DECOM) the coordinates count from the scroll region's top and the left margin.
    fn checksum(&self, [top, left, bottom, right]: [u16; 4]) -> u16 {
        let grid = self.term.grid();
        let (rows, cols) = (grid.screen_lines(), grid.columns());
        let edge = |v: u16, default: usize, max: usize| {
            if v == 0 {
                default
            } else {
                (v as usize).min(max)
            }
        };
        // In origin mode the coordinates count from the origin (xterm).
        let (dy, dx) = if self.term.mode().contains(TermMode::ORIGIN) {
            let m = self.dec.horizontal(cols);
            (self.region.start.max(0) as u16, m.start as u16)
        } else {
            (0, 0)
        };
        let shift = |v: u16, d: u16| if v == 0 { 0 } else { v.saturating_add(d) };
        let top = edge(shift(top, dy), 1, rows);
        let left = edge(shift(left, dx), 1, cols);
        let bottom = edge(shift(bottom, dy), rows, rows);
        let right = edge(shift(right, dx), cols, cols);
        let mut sum: u32 = 0;
        for line in top..=bottom {
            let row = &grid[Line(line as i32 - 1)];
            for col in left..=right {
                let cell = &row[Column(col - 1)];
                if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                    continue;
                }
                sum = sum.wrapping_add(cell.c as u32);
            }
        }
        (sum as u16).wrapping_neg()
    }

    /// The DECRQSS answer's value for the setting with final characters `setting` (xterm's
    /// ctlseqs, "Request Selection or Setting"): `m` the SGR in effect (`0;1;38;2;1;2;3`),
    /// ` q` the cursor style (DECSCUSR's `Ps`), `r` the scroll region (DECSTBM's `Pt ; Pb`),
    /// `s` the left and right margins (DECSLRM's `Pl ; Pr`), `"q` the character protection
    /// (DECSCA's `Ps`), `"p` the conformance level (DECSCL's `Pl ; Pc`: the one the program
    /// selected, else `62 ; 1`, the VT220 level DA1 reports), `t` and `*|` the lines per page
    /// and per screen (DECSLPP, DECSNLS: the screen's rows), `*x` the attribute change extent
    /// (DECSACE, as set), `$}` and `$~` the active status display and the status line type
    /// (DECSASD, DECSSDT: `0`, there is no status line). `None` for a setting not reported
    /// here (the answer is then `DCS 0 $ r ST`, "invalid request").
    fn setting(&self, setting: &[u8]) -> Option<String> {
        match setting {
            b"r" => Some(format!("{};{}r", self.region.start + 1, self.region.end)),
            b"s" => {
                let m = self.dec.horizontal(self.cols());
                Some(format!("{};{}s", m.start + 1, m.end))
            }
            b"\"q" => {
                let protected = self.term.grid().cursor.template.flags.contains(PROTECTED);
                Some(format!("{}\"q", u8::from(protected)))
            }
            b"\"p" => Some(match self.dec.level {
                Some(1) => "61\"p".to_string(),
                Some(level) => format!("6{level};1\"p"),
                None => "62;1\"p".to_string(),
            }),
            b"t" => Some(format!("{}t", self.rows())),
            b"*|" => Some(format!("{}*|", self.rows())),
            b"*x" => Some(format!("{}*x", self.dec.attribute_extent)),
            b"$}" => Some("0$}".into()),
            b"$~" => Some("0$~".into()),
            b"m" => Some(sgr_of(&self.term.grid().cursor.template) + "m"),
            b" q" => {
                let style = self.term.cursor_style();
                let base = match style.shape {
                    TermCursorShape::Underline => 3,
                    TermCursorShape::Beam => 5,
                    _ => 1,
                };
                Some(format!("{} q", base + u8::from(!style.blinking)))
            }
            _ => None,
        }
    }

    /// How many LF bytes (0x0A) the program has written since the start: a monotonic measure
    /// of line output (a log streaming by), unlike redraws in place (a spinner, a TUI frame
    /// drawn with cursor moves). Used by the stall alarm (`termio::stall`).
    pub fn line_feeds(&self) -> u64 {
        self.line_feeds
    }

    /// The program's last OSC 7501 status report, if it sent one.
    pub fn program_status(&self) -> Option<&ProgramStatus> {
        self.program_status.as_ref()
    }

    /// How many OSC 7501 status reports arrived (a repeated state is still a new report).
    pub fn status_reports(&self) -> u64 {
        self.status_reports
    }

    /// The last OSC 9;4 progress report: how many arrived, and the last one's state (0
    /// removed, 1 normal, 2 error, 3 indeterminate, 4 paused).
    pub fn progress(&self) -> Option<(u64, u8)> {
        self.progress
    }

    /// When an open synchronized-output frame must be force-ended, if one is open.
    pub fn sync_deadline(&self) -> Option<Instant> {
        self.parser.sync_timeout().deadline
    }

    /// Ends an open synchronized-output frame by force (applies the buffered bytes), counting
    /// it ([`Emulator::forced_sync_ends`]). Nothing happens when no frame is open.
    pub fn expire_sync(&mut self) {
        if self.sync_deadline().is_none() {
            return;
        }
        self.wake();
        self.forced_sync_ends += 1;
        let mut handler = Guarded {
            term: &mut self.term,
            scrollback: &mut self.scrollback,
            region: &mut self.region,
            width: &mut self.width,
            listener: &self.events,
            dec: &mut self.dec,
        };
        self.parser.stop_sync(&mut handler);
        self.drain_events();
    }

    /// Applies any buffered synchronized-output frame if its deadline has passed.
    pub fn expire_sync_if_due(&mut self, now: Instant) {
        if self.sync_deadline().is_some_and(|d| d <= now) {
            self.expire_sync();
        }
    }

    /// Bytes the terminal must send back to the program (answers to DSR, DA1/DA2, DECRQM,
    /// `CSI 14/18 t`, OSC 4/10/11 queries), in order; empties the queue.
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

    /// The window title set by OSC 0/2, if any (cleared by the title-reset sequence).
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Number of BEL characters seen.
    pub fn bells(&self) -> u64 {
        self.bells
    }

    /// Resizes the grid to `cols` × `rows` (each clamped to 1–[`MAX_SIZE`]); content reflows
    /// as in alacritty: rows pushed off the top go to the scrollback, rows come back from it
    /// when the screen grows taller, and the scrollback is re-wrapped at the new width (a line
    /// running from the scrollback onto the screen is re-wrapped in two parts).
    ///
    /// Safe at every size with any content, and bounded: a terminal becoming 1 column wide
    /// first turns its double-width characters into U+FFFD, and a width shrinking to less than
    /// half is reached in halving steps (see [`super::guard`]).
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let size = Size::clamped(cols, rows);
        if (size.cols, size.rows) == (self.cols(), self.rows()) {
            return;
        }
        self.wake();
        if self.term.mode().contains(TermMode::ALT_SCREEN) {
            // The primary screen is resized while shown (its rows are only reachable so), then
            // the alternate screen is put back, resized without reflow as alacritty does.
            let mut alternate = self.term.grid().clone();
            self.term.swap_alt();
            self.resize_primary(size);
            self.term.swap_alt();
            if size.cols == 1 {
                guard::narrow_grid(&mut alternate);
            }
            alternate.resize(false, size.rows, size.cols);
            alternate.truncate();
            *self.term.grid_mut() = alternate;
        } else {
            self.resize_primary(size);
            // alacritty resized the alternate grid too (growing it with 1 000 spare rows).
            guard::set_alternate(&mut self.term, 1, 1);
        }
        self.region = 0..size.rows as i32;
        self.dec.margins = None;
    }

    /// [`Emulator::resize`] with the primary screen shown: rows first, then columns, as
    /// alacritty does.
    fn resize_primary(&mut self, size: Size) {
        let (old_cols, old_rows) = (self.cols(), self.rows());
        if size.rows < old_rows {
            // alacritty keeps the cursor on screen: the rows above it that no longer fit go.
            let cursor = self.term.grid().cursor.point.line.0.max(0) as usize;
            let pushed = (cursor + 1).saturating_sub(size.rows);
            guard::keep_top(&self.term, &mut self.scrollback, pushed, CursorRow::AsIs);
            self.term.resize(Size {
                cols: old_cols,
                rows: size.rows,
            });
        } else if size.rows > old_rows {
            self.term.resize(Size {
                cols: old_cols,
                rows: size.rows,
            });
            self.pull_back(size.rows - old_rows);
            // Growing, alacritty adds 1 000 spare rows to the grid: let them go.
            self.term.grid_mut().truncate();
        }
        if size.cols != old_cols {
            // alacritty reflows its history with the screen: the newest lines of the scrollback
            // (a line running onto the screen, rows a joining screen pulls down) go back to its
            // history for the reflow, and everything it holds after it goes to the scrollback.
            let most = (2 * size.rows).max(REFLOW_CELLS / old_cols.max(size.cols));
            let back = self.scrollback.pop_lines(size.rows, size.cols, most);
            let grid = self.term.grid_mut();
            grid.update_history(MAX_SIZE * (MAX_SIZE + 1));
            inject_history(grid, back);
            if size.cols == 1 {
                guard::narrow_grid(grid);
            }
            let steps = guard::shrink_steps(old_cols, size.cols);
            for cols in steps.into_iter().chain([size.cols]) {
                self.term.resize(Size {
                    cols,
                    rows: size.rows,
                });
            }
            self.scrollback.set_width(size.cols);
            let grid = self.term.grid();
            for line in -(grid.history_size() as i32)..0 {
                let cells = &grid[Line(line)][..];
                let wrapped = cells
                    .last()
                    .is_some_and(|c| c.flags.contains(Flags::WRAPLINE));
                self.scrollback.push_row(cells, wrapped);
            }
            let grid = self.term.grid_mut();
            grid.update_history(0);
            grid.truncate();
        }
    }

    /// After the screen grew `added` rows taller: the newest rows of the scrollback come back
    /// at its top, the rest moving down, as alacritty pulls them from its history.
    fn pull_back(&mut self, added: usize) {
        let back = self.scrollback.pop_rows(added);
        if back.is_empty() {
            return;
        }
        let n = back.len();
        let cols = self.cols();
        let grid = self.term.grid_mut();
        let lines = grid.screen_lines() as i32;
        grid.scroll_down(&(Line(0)..Line(lines)), n);
        for (i, cells) in back.into_iter().enumerate() {
            grid[Line(i as i32)] = Row::from_vec(cells, cols);
        }
        grid.cursor.point.line += n;
        grid.saved_cursor.point.line += n;
    }

    /// Keeps at most `rows` rows of scrollback from now on (clamped to [`MAX_SCROLLBACK`]),
    /// dropping the oldest now if there are more.
    pub fn set_scrollback(&mut self, rows: usize) {
        self.scrollback.set_limit(rows.min(MAX_SCROLLBACK));
    }

    /// The most rows of scrollback kept.
    pub fn scrollback_limit(&self) -> usize {
        self.scrollback.limit()
    }

    fn drain_events(&mut self) {
        let events = std::mem::take(&mut *self.events.0.lock().unwrap_or_else(|e| e.into_inner()));
        for event in events {
            match event {
                // alacritty answers DA1 as a VT102 (`CSI ? 6 c`); we are a VT220-class
                // terminal with ANSI colour (`CSI ? 62 ; 22 c`), as xterm-compatible
                // programs expect (SC-07).
                Event::PtyWrite(text) if text == "\x1b[?6c" => {
                    self.replies.extend_from_slice(DA1_ANSWER)
                }
                Event::PtyWrite(text) => self.replies.extend_from_slice(text.as_bytes()),
                Event::ColorRequest(index, format) => {
                    let rgb = self.query_color(index);
                    let reply = format(ansi::Rgb {
                        r: rgb.r,
                        g: rgb.g,
                        b: rgb.b,
                    });
                    self.replies.extend_from_slice(reply.as_bytes());
                }
                Event::TextAreaSizeRequest(format) => {
                    let size = WindowSize {
                        num_lines: self.rows() as u16,
                        num_cols: self.cols() as u16,
                        cell_width: REPORTED_CELL_PX.0,
                        cell_height: REPORTED_CELL_PX.1,
                    };
                    self.replies.extend_from_slice(format(size).as_bytes());
                }
                Event::Title(title) => self.title = Some(title),
                Event::ResetTitle => self.title = None,
                Event::Bell => self.bells += 1,
                _ => {}
            }
        }
    }

    /// The colour for a query of palette `index` (0–255), or the dynamic colours
    /// (256 foreground, 257 background, 258 cursor). A colour the program set wins.
    fn query_color(&self, index: usize) -> Rgb {
        if index >= 256 {
            let dynamic = if index == NamedColor::Background as usize {
                1
            } else if index == NamedColor::Cursor as usize {
                2
            } else {
                0
            };
            return self.slot_color(Slot::Dynamic(dynamic));
        }
        if let Some(c) = self.term.colors()[index] {
            return Rgb::new(c.r, c.g, c.b);
        }
        match index {
            0..=15 => self.colors.ansi[index],
            _ => xterm_256(index as u8),
        }
    }

    /// Rows of scrollback above the viewport (none while the alternate screen is shown: it
    /// has no scrollback).
    pub fn history_size(&self) -> usize {
        if self.term.mode().contains(TermMode::ALT_SCREEN) {
            0
        } else {
            self.scrollback.rows()
        }
    }

    /// The modes now that matter to input and to the picture (DECCKM, DECKPAM, bracketed
    /// paste, mouse, alternate screen, synchronized output, width policy, reverse video).
    pub fn modes(&self) -> Modes {
        let mode = *self.term.mode();
        Modes {
            alternate_screen: mode.contains(TermMode::ALT_SCREEN),
            application_cursor: mode.contains(TermMode::APP_CURSOR),
            application_keypad: mode.contains(TermMode::APP_KEYPAD),
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            mouse_reporting: mode.intersects(TermMode::MOUSE_MODE),
            synchronized_output: self.sync_deadline().is_some(),
            kitty_keyboard_flags: kitty_flags(mode),
            grapheme_clusters: self.width.graphemes,
            forced_sync_ends: self.forced_sync_ends,
            reverse_video: self.dec.kept.private(super::modes::DECSCNM),
        }
    }

    /// The cursor's viewport row and column, 0-based (cheap: no snapshot).
    pub fn cursor(&self) -> (usize, usize) {
        let p = match &self.frozen {
            Some(frozen) => frozen.cursor().point,
            None => self.term.grid().cursor.point,
        };
        (
            p.line.0.max(0) as usize,
            p.column.0.min(self.cols().saturating_sub(1)),
        )
    }

    /// Viewport row `row` as text (clusters in order, right-trimmed), without a full snapshot.
    pub fn row_text(&self, row: usize) -> String {
        let frozen_row;
        let line: &[TermCell] = match &self.frozen {
            Some(frozen) => {
                frozen_row = frozen.row(row);
                &frozen_row
            }
            None => &self.term.grid()[Line(row as i32)][..],
        };
        let mut s = String::new();
        for cell in line {
            if !cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                push_cluster(&mut s, cell);
            }
        }
        s.truncate(s.trim_end().len());
        s
    }

    /// The viewport only.
    pub fn snapshot(&self) -> Screen {
        self.snapshot_rows(false)
    }

    /// The whole scrollback followed by the viewport.
    pub fn snapshot_with_scrollback(&self) -> Screen {
        self.snapshot_rows(true)
    }

    fn snapshot_rows(&self, with_scrollback: bool) -> Screen {
        let grid = self.grid();
        let cols = grid.columns();
        let rows = grid.screen_lines();
        let history = if with_scrollback {
            self.history_size()
        } else {
            0
        };
        let mut out: Vec<Vec<Cell>> = Vec::with_capacity(history + rows);
        let mut wrapped = Vec::new();
        if history > 0 {
            self.scrollback.for_each_row(|cells| {
                out.push(cells.iter().map(convert_cell).collect());
                if cells
                    .last()
                    .is_some_and(|c| c.flags.contains(Flags::WRAPLINE))
                {
                    wrapped.push(out.len() - 1);
                }
            });
        }
        for line in 0..rows as i32 {
            let row = &grid[Line(line)];
            out.push((0..cols).map(|c| convert_cell(&row[Column(c)])).collect());
            if cols > 0 && row[Column(cols - 1)].flags.contains(Flags::WRAPLINE) {
                wrapped.push(out.len() - 1);
            }
        }
        let mode = *self.term.mode();
        let cursor_point = grid.cursor.point;
        let style = self.term.cursor_style();
        let shape = match style.shape {
            TermCursorShape::Block | TermCursorShape::Hidden => CursorShape::Block,
            TermCursorShape::Underline => CursorShape::Underline,
            TermCursorShape::Beam => CursorShape::Bar,
            TermCursorShape::HollowBlock => CursorShape::HollowBlock,
        };
        let palette_overrides = (0..256)
            .filter_map(|i| self.term.colors()[i].map(|c| (i as u8, Rgb::new(c.r, c.g, c.b))))
            .collect();
        Screen {
            width: cols,
            height: rows,
            rows: out,
            scrollback_rows: history,
            cursor: Cursor {
                row: history + cursor_point.line.0.max(0) as usize,
                col: cursor_point.column.0.min(cols.saturating_sub(1)),
                visible: mode.contains(TermMode::SHOW_CURSOR)
                    && style.shape != TermCursorShape::Hidden,
                shape,
            },
            modes: self.modes(),
            title: self.title.clone(),
            palette_overrides,
            wrapped,
        }
    }
}

/// How many bytes at the end of `bytes` are the start of a UTF-8 character whose remaining
/// bytes have not come yet (0–3): a lead byte (0xC2–0xF4) followed by fewer continuation
/// bytes than it announces. Anything else (ASCII, a complete character, bytes that are no
/// UTF-8) is 0: the parser deals with it as it comes.
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(4) {
        let b = bytes[n - back];
        if b & 0xc0 == 0x80 {
            continue; // A continuation byte: look further back for the lead.
        }
        let len = match b {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return 0,
        };
        return if back < len { back } else { 0 };
    }
    0
}

/// Puts `rows` (oldest first, as wide as the grid) into the history of `grid` above its
/// screen, which stays as it is. The grid's history limit must allow them.
fn inject_history(grid: &mut Grid<TermCell>, rows: Vec<Vec<TermCell>>) {
    let n = rows.len();
    if n == 0 {
        return;
    }
    let lines = grid.screen_lines() as i32;
    let cols = grid.columns();
    let screen: Vec<Row<TermCell>> = (0..lines).map(|l| grid[Line(l)].clone()).collect();
    // Makes `n` rows of history (the screen's top rows, rewritten below).
    grid.scroll_up(&(Line(0)..Line(lines)), n);
    for (i, cells) in rows.into_iter().enumerate() {
        grid[Line(i as i32 - n as i32)] = Row::from_vec(cells, cols);
    }
    for (i, row) in screen.into_iter().enumerate() {
        grid[Line(i as i32)] = row;
    }
}

fn convert_color(c: ansi::Color) -> Color {
    match c {
        ansi::Color::Spec(rgb) => Color::Rgb(Rgb::new(rgb.r, rgb.g, rgb.b)),
        ansi::Color::Indexed(i) => Color::Indexed(i),
        ansi::Color::Named(n) => match n as usize {
            i @ 0..=15 => Color::Named(i as u8),
            _ => match n {
                NamedColor::DimBlack => Color::Named(0),
                NamedColor::DimRed => Color::Named(1),
                NamedColor::DimGreen => Color::Named(2),
                NamedColor::DimYellow => Color::Named(3),
                NamedColor::DimBlue => Color::Named(4),
                NamedColor::DimMagenta => Color::Named(5),
                NamedColor::DimCyan => Color::Named(6),
                NamedColor::DimWhite => Color::Named(7),
                _ => Color::Default,
            },
        },
    }
}

/// Appends a cell's grapheme cluster: its character (NUL and TAB, which alacritty may leave
/// in cells, read as a space) and its zero-width characters.
fn push_cluster(s: &mut String, cell: &TermCell) {
    s.push(if cell.c == '\0' || cell.c == '\t' {
        ' '
    } else {
        cell.c
    });
    if let Some(zw) = cell.zerowidth() {
        s.extend(zw);
    }
}

fn convert_cell(cell: &TermCell) -> Cell {
    let f = cell.flags;
    let (text, width) = if f.contains(Flags::WIDE_CHAR_SPACER) {
        (String::new(), 0)
    } else if f.contains(Flags::LEADING_WIDE_CHAR_SPACER) {
        (" ".to_string(), 1)
    } else {
        let mut s = String::new();
        push_cluster(&mut s, cell);
        (s, if f.contains(Flags::WIDE_CHAR) { 2 } else { 1 })
    };
    let underline = if f.contains(Flags::UNDERCURL) {
        Underline::Curly
    } else if f.contains(Flags::DOUBLE_UNDERLINE) {
        Underline::Double
    } else if f.contains(Flags::DOTTED_UNDERLINE) {
        Underline::Dotted
    } else if f.contains(Flags::DASHED_UNDERLINE) {
        Underline::Dashed
    } else if f.contains(Flags::UNDERLINE) {
        Underline::Single
    } else {
        Underline::None
    };
    let link = cell.hyperlink().map(|h| Link {
        uri: h.uri().to_string(),
        // alacritty invents "<n>_alacritty" ids for links without one; never expose those.
        id: (!h.id().ends_with("_alacritty")).then(|| h.id().to_string()),
    });
    Cell {
        text,
        fg: convert_color(cell.fg),
        bg: convert_color(cell.bg),
        bold: f.contains(Flags::BOLD),
        dim: f.contains(Flags::DIM),
        italic: f.contains(Flags::ITALIC),
        underline,
        underline_color: cell.underline_color().map(convert_color),
        strikethrough: f.contains(Flags::STRIKEOUT),
        inverse: f.contains(Flags::INVERSE),
        hidden: f.contains(Flags::HIDDEN),
        link,
        width,
        masked: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfinished_utf8_character_at_the_end_is_held_back() {
        // é is C3 A9, 中 E4 B8 AD, 😀 F0 9F 98 80.
        assert_eq!(incomplete_utf8_tail(b"ab\xc3"), 1);
        assert_eq!(incomplete_utf8_tail(b"ab\xe4\xb8"), 2);
        assert_eq!(incomplete_utf8_tail(b"\xf0\x9f\x98"), 3);
        for whole in [
            &b"ab"[..],
            b"\xc3\xa9",
            b"\xe4\xb8\xad",
            b"\xf0\x9f\x98\x80",
            b"",
        ] {
            assert_eq!(incomplete_utf8_tail(whole), 0, "{whole:?}");
        }
        // Bytes that are no UTF-8 go to the parser as they are.
        assert_eq!(incomplete_utf8_tail(b"\xa9"), 0);
        assert_eq!(incomplete_utf8_tail(b"\xc0"), 0);
        assert_eq!(incomplete_utf8_tail(b"\xff"), 0);
    }

    fn screen(input: &str) -> Screen {
        let mut e = Emulator::new(40, 5);
        e.advance(input.as_bytes());
        e.snapshot()
    }

    #[test]
    fn wide_characters_take_two_cells() {
        let s = screen("中文|");
        let r = &s.rows[0];
        assert_eq!((r[0].text.as_str(), r[0].width), ("中", 2));
        assert_eq!((r[1].text.as_str(), r[1].width), ("", 0));
        assert_eq!(r[2].text, "文");
        assert_eq!(r[4].text, "|");
        assert_eq!(s.row_text(0), "中文|");
    }

    #[test]
    fn combining_marks_join_their_base_cell() {
        let s = screen("e\u{301}x");
        assert_eq!(s.rows[0][0].text, "e\u{301}");
        assert_eq!(s.rows[0][1].text, "x");
    }

    #[test]
    fn sgr_colours_and_colon_forms() {
        let s = screen("\x1b[38;2;68;68;68mA\x1b[0m\x1b[38:2::255:0:0mB\x1b[38;5;208mC\x1b[92mD\x1b[4:3;58:2::1:2:3mE");
        let r = &s.rows[0];
        assert_eq!(r[0].fg, Color::Rgb(Rgb::new(68, 68, 68)));
        assert_eq!(r[1].fg, Color::Rgb(Rgb::new(255, 0, 0)));
        assert_eq!(r[2].fg, Color::Indexed(208));
        assert_eq!(r[3].fg, Color::Named(10));
        assert_eq!(r[4].underline, Underline::Curly);
        assert_eq!(r[4].underline_color, Some(Color::Rgb(Rgb::new(1, 2, 3))));
    }

    #[test]
    fn answers_device_queries() {
        let mut e = Emulator::new(80, 24);
        e.advance(b"\x1b[6n\x1b[c\x1b[18t\x1b]11;?\x07");
        let r = String::from_utf8(e.take_replies()).unwrap();
        assert!(r.starts_with("\x1b[1;1R"), "{r:?}");
        e.advance(b"\x1b[>c\x1b[?2004$p\x1b[14t\x1b]4;1;?\x07\x1b]10;?\x07");
        let r2 = String::from_utf8(e.take_replies()).unwrap();
        assert!(r2.contains("\x1b[>0;"), "DA2: {r2:?}");
        assert!(r2.contains("\x1b[?2004;2$y"), "DECRQM: {r2:?}");
        assert!(r2.contains("\x1b[4;432;640t"), "CSI 14 t: {r2:?}");
        assert!(r2.contains("\x1b]4;1;rgb:cdcd/3131/3131"), "OSC 4: {r2:?}");
        assert!(r2.contains("\x1b]10;rgb:d4d4/d4d4/d4d4"), "OSC 10: {r2:?}");
        assert!(r.contains("\x1b[?62;22c"), "DA1: {r:?}");
        assert!(r.contains("\x1b[8;24;80t"), "{r:?}");
        assert!(r.contains("\x1b]11;rgb:1e1e/1e1e/1e1e"), "{r:?}");
    }

    /// The queries alacritty leaves to us: kitty keyboard flags, XTVERSION and the OSC 7501
    /// probe, answered in the order they were asked even within one read.
    #[test]
    fn answers_keyboard_version_and_status_probes_in_order() {
        let mut e = Emulator::new(80, 24);
        e.advance(b"\x1b[?u\x1b[>1u\x1b[?u\x1b[<u\x1b]7501;?\x1b\\\x1b[c\x1b[>0q\x1b]7501;?\x07");
        let r = String::from_utf8(e.take_replies()).unwrap();
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            r,
            format!(
                "\x1b[?0u\x1b[?1u\x1b]7501;1\x1b\\\x1b[?62;22c\x1bP>|console2svg {version}\x1b\\\x1b]7501;1\x07"
            )
        );
        assert_eq!(e.modes().kitty_keyboard_flags, 0, "popped again");
        e.advance(b"\x1b[>1u");
        assert_eq!(e.modes().kitty_keyboard_flags, 1);
    }

    #[test]
    fn osc_7501_reports_are_kept() {
        let mut e = Emulator::new(80, 24);
        assert!(e.program_status().is_none());
        e.advance(b"\x1b]7501;state=working\x07text\x1b]7501;state=working\x1b\\");
        assert_eq!(e.program_status().unwrap().state, "working");
        assert_eq!(e.status_reports(), 2);
        assert_eq!(e.snapshot().row_text(0), "text");
    }

    #[test]
    fn hyperlinks_keep_only_explicit_ids() {
        let s = screen(
            "\x1b]8;;https://a.example\x1b\\x\x1b]8;id=7;https://b.example\x1b\\y\x1b]8;;\x1b\\",
        );
        let r = &s.rows[0];
        assert_eq!(
            r[0].link,
            Some(Link {
                uri: "https://a.example".into(),
                id: None
            })
        );
        assert_eq!(
            r[1].link,
            Some(Link {
                uri: "https://b.example".into(),
                id: Some("7".into())
            })
        );
        assert_eq!(r[2].link, None);
    }

    #[test]
    fn synchronized_frames_are_never_half_shown() {
        let mut e = Emulator::new(20, 3);
        e.advance(b"old\x1b[?2026h\x1b[H\x1b[2Jnew");
        assert_eq!(e.snapshot().row_text(0), "old");
        assert!(e.snapshot().modes.synchronized_output);
        e.advance(b"\x1b[?2026l");
        assert_eq!(e.snapshot().row_text(0), "new");
    }

    #[test]
    fn cursor_shape_visibility_and_modes() {
        let s = screen("ab\x1b[5 q\x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h");
        assert_eq!(
            (s.cursor.row, s.cursor.col, s.cursor.shape),
            (0, 2, CursorShape::Bar)
        );
        assert!(s.cursor.visible);
        assert!(s.modes.application_cursor && s.modes.application_keypad);
        assert!(s.modes.bracketed_paste && s.modes.mouse_reporting);
        assert!(!screen("\x1b[?25l").cursor.visible);
        assert!(screen("\x1b[?1049h").modes.alternate_screen);
    }

    #[test]
    fn scrollback_rows_precede_the_viewport() {
        let mut e = Emulator::new(10, 2);
        e.advance(b"1\r\n2\r\n3\r\n4");
        let s = e.snapshot_with_scrollback();
        assert_eq!(s.scrollback_rows, 2);
        assert_eq!(s.text(), "1\n2\n3\n4");
        assert_eq!(s.cursor.row, 3);
        assert_eq!(e.snapshot().text(), "3\n4");
    }

    /// Runs `f` on its own thread and fails if it has not finished within 20 s (a resize that
    /// never ends would otherwise hang the test run).
    fn within_bound(what: String, f: impl FnOnce() + Send + 'static) {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            f();
            let _ = tx.send(());
        });
        match rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(()) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: did not end"),
            Err(_) => panic!("{what}: panicked"),
        }
    }

    /// Every row of a snapshot has the terminal's width, and a 1-column terminal holds no
    /// double-width cell.
    fn assert_consistent(e: &Emulator, what: &str) {
        let s = e.snapshot_with_scrollback();
        assert_eq!(s.rows.len(), s.scrollback_rows + s.height, "{what}");
        for row in &s.rows {
            assert_eq!(row.len(), s.width, "{what}");
            let cells: usize = row.iter().map(|c| c.width.max(1) as usize).sum::<usize>()
                - row.iter().filter(|c| c.width == 2).count();
            assert_eq!(cells, s.width, "{what}: {row:?}");
            if s.width == 1 {
                assert!(row.iter().all(|c| c.width == 1), "{what}: {row:?}");
            }
        }
    }

    const GUARD_CONTENT: [&str; 6] = [
        "中文字\r\n日本",
        "😀x😀\r\n👍🏽",
        "e\u{301}a\u{308}\u{20dd}z",
        "👩\u{200d}💻 ok",
        "🇺🇸\u{2764}\u{fe0f}⌚\u{fe0e}\x1b[4h🇬🇧\u{2764}\u{fe0f}\x1b[4l",
        "ab中\r\n\r\ncd文e\r\nf😀",
    ];

    /// Issue 19 item 1: any content at every size 1–3, resized in every direction (to each
    /// size 1–3, and back up to 12 × 6), in the primary and the alternate screen, neither
    /// panics nor hangs, and the grid stays consistent.
    #[test]
    fn every_small_size_takes_wide_emoji_and_combining_content_and_resizes() {
        for content in GUARD_CONTENT {
            for alt in [false, true] {
                within_bound(format!("{content:?} alt={alt}"), move || {
                    for (c0, r0) in (1..=3).flat_map(|c| (1..=3).map(move |r| (c, r))) {
                        for (c1, r1) in (1..=3).flat_map(|c| (1..=3).map(move |r| (c, r))) {
                            let what = format!("{content:?} alt={alt} {c0}x{r0} -> {c1}x{r1}");
                            let mut e = Emulator::new(c0, r0);
                            // Primary content (with scrollback), then the alternate screen's.
                            e.advance(format!("{content}\r\n{content}").as_bytes());
                            if alt {
                                e.advance(format!("\x1b[?1049h{content}").as_bytes());
                            }
                            assert_consistent(&e, &what);
                            e.resize(c1, r1);
                            assert_consistent(&e, &what);
                            e.advance(content.as_bytes());
                            assert_consistent(&e, &what);
                            e.resize(12, 6);
                            assert_consistent(&e, &what);
                            e.resize(c0, r0);
                            e.advance(b"\x1b[?1049l");
                            e.advance(content.as_bytes());
                            assert_consistent(&e, &what);
                        }
                    }
                });
            }
        }
    }

    #[test]
    fn a_wide_character_in_one_column_is_the_replacement_character() {
        let mut e = Emulator::new(1, 4);
        e.advance("中😀a".as_bytes());
        let s = e.snapshot();
        assert_eq!(s.text(), "\u{fffd}\n\u{fffd}\na");
        assert!(s.rows.iter().flatten().all(|c| c.width == 1));
    }

    /// The reproducer of issue 19 item 1: `resize --width 1` with a wide character on screen
    /// never ended (reflow moved the character to the next row for ever).
    #[test]
    fn resizing_to_one_column_with_wide_characters_ends_and_narrows_them() {
        within_bound("resize to 1 column".into(), || {
            let mut e = Emulator::new(80, 24);
            e.advance("中文 ok\r\n".as_bytes());
            e.resize(1, 24);
            let s = e.snapshot_with_scrollback();
            assert!(
                s.text().starts_with("\u{fffd}\n\n\u{fffd}\n\n\no\nk"),
                "{:?}",
                s.text()
            );
            e.resize(80, 24);
            assert!(
                e.snapshot().text().starts_with("\u{fffd} \u{fffd}  ok"),
                "{:?}",
                e.snapshot().text()
            );
        });
    }

    /// The primary screen is reflowed while the alternate screen is shown: its wide characters
    /// are narrowed too, and the alternate screen's content stays.
    #[test]
    fn resizing_to_one_column_in_the_alternate_screen_keeps_it() {
        within_bound("resize in the alternate screen".into(), || {
            let mut e = Emulator::new(10, 3);
            e.advance("中\x1b[?1049h\x1b[HA".as_bytes());
            e.resize(1, 3);
            assert!(e.modes().alternate_screen);
            assert_eq!(e.snapshot().text(), "A");
            e.advance(b"\x1b[?1049l");
            let s = e.snapshot_with_scrollback();
            assert_eq!(s.text(), "\u{fffd}", "{s:?}");
        });
    }

    /// Reflowing a full 500 × 500 screen and its scrollback to 1 column went to tens of GB
    /// (every piece of a split row kept the row's capacity); in halving steps it is bounded.
    #[test]
    fn the_largest_grid_with_scrollback_resizes_to_one_column_and_back() {
        within_bound("500 x 500 to 1 column".into(), || {
            let mut e = Emulator::new(MAX_SIZE, MAX_SIZE);
            let line = format!("{}\r\n", "中".repeat(MAX_SIZE / 2));
            e.advance(line.repeat(MAX_SIZE + 200).as_bytes());
            assert!(e.history_size() > 0);
            e.resize(1, MAX_SIZE);
            assert_consistent(&e, "500x500 -> 1x500");
            e.resize(MAX_SIZE, 1);
            e.resize(2, 2);
            e.resize(MAX_SIZE, MAX_SIZE);
            assert_consistent(&e, "back to 500x500");
        });
    }

    #[test]
    fn sizes_are_clamped_to_the_contract_range() {
        let mut e = Emulator::new(0, 100_000);
        assert_eq!((e.cols(), e.rows()), (1, MAX_SIZE));
        e.resize(usize::MAX, 0);
        assert_eq!((e.cols(), e.rows()), (MAX_SIZE, 1));
    }

    /// Random output and resizes at sizes 1–6 (a stable, seeded pass of what the fuzz targets
    /// explore): nothing panics or hangs.
    #[test]
    fn random_output_and_resizes_at_small_sizes() {
        within_bound("random output".into(), || {
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut next = move |n: u64| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed % n
            };
            let pieces: [&[u8]; 29] = [
                "中".as_bytes(),
                "😀".as_bytes(),
                "e\u{301}".as_bytes(),
                "\u{2764}".as_bytes(),
                "\u{fe0f}".as_bytes(),
                "\u{fe0e}".as_bytes(),
                "🇺".as_bytes(),
                "\u{200d}👩🏽".as_bytes(),
                b"ab",
                b"\r\n",
                b"\t",
                b"\x08",
                b"\x1b[2J",
                b"\x1b[3J",
                b"\x1b[65535@",
                b"\x1b[65535P",
                b"\x1b[65535L",
                b"\x1b[65535M",
                b"\x1b[65535S",
                b"\x1b[65535T",
                b"\x1b[2;3r",
                b"\x1b[?6h",
                b"\x1b[4h",
                b"\x1b[?7l",
                b"\x1b[?1049h",
                b"\x1b[?1049l",
                b"\x1b#8",
                b"\x1bc",
                b"\x1b[65535;65535H",
            ];
            for _ in 0..300 {
                let mut e = Emulator::new(next(6) as usize + 1, next(6) as usize + 1);
                for _ in 0..40 {
                    if next(5) == 0 {
                        e.resize(next(6) as usize + 1, next(6) as usize + 1);
                    } else {
                        for _ in 0..next(4) + 1 {
                            e.advance(pieces[next(pieces.len() as u64) as usize]);
                        }
                    }
                }
                assert_consistent(&e, "random");
            }
        });
    }

    /// alacritty's own terminal keeping its own history: the reference the compact scrollback
    /// is held to.
    struct Native {
        term: Term<Events>,
        parser: Processor,
    }

    impl Native {
        fn new(cols: usize, rows: usize, history: usize) -> Native {
            let config = Config {
                scrolling_history: history,
                kitty_keyboard: true,
                ..Config::default()
            };
            Native {
                term: Term::new(config, &Size { cols, rows }, Events::default()),
                parser: Processor::new(),
            }
        }

        /// Resizes as the emulator does: rows first, a width shrinking to less than half in
        /// halving steps, with an unbounded history for the time of a width change.
        fn resize(&mut self, cols: usize, rows: usize, history: usize) {
            let old = self.term.columns();
            let primary = !self.term.mode().contains(TermMode::ALT_SCREEN);
            if primary && cols != old {
                self.term.grid_mut().update_history(MAX_SCROLLBACK);
            }
            self.term.resize(Size { cols: old, rows });
            for step in guard::shrink_steps(old, cols).into_iter().chain([cols]) {
                self.term.resize(Size { cols: step, rows });
            }
            if primary && cols != old {
                self.term.grid_mut().update_history(history);
            }
        }

        fn advance(&mut self, bytes: &[u8]) {
            self.parser.advance(&mut self.term, bytes);
            self.parser.stop_sync(&mut self.term);
        }

        /// History and screen rows as the snapshot converts them, and the cursor.
        fn rows(&self) -> (Vec<Vec<Cell>>, (usize, usize)) {
            let grid = self.term.grid();
            let h = grid.history_size() as i32;
            let rows = (-h..grid.screen_lines() as i32)
                .map(|l| grid[Line(l)][..].iter().map(convert_cell).collect())
                .collect();
            let p = grid.cursor.point;
            (rows, ((h + p.line.0) as usize, p.column.0))
        }

        /// `piece` is where the emulator follows xterm and alacritty does not, so from here the
        /// two are not compared: a tab with a wrap pending (a character just written in the
        /// last column: alacritty wraps, xterm leaves the cursor there; see `Guarded::put_tab`)
        /// and DECCOLM (`CSI ? 3 h/l`: alacritty clears the screen, xterm ignores it unless
        /// mode 40 allows it; see `term::modes`).
        fn differs_deliberately(&self, piece: &[u8]) -> bool {
            (self.term.grid().cursor.input_needs_wrap && piece.contains(&b'\t'))
                || piece.starts_with(b"\x1b[?3h")
                || piece.starts_with(b"\x1b[?3l")
        }

        /// Insert mode is on with a double-width character on the screen: alacritty's insert
        /// rotates the row and writes over the cells that come round, which can lose a
        /// character beside a double-width one; the emulator's guard does not (see
        /// `Guarded::insert_wide_safely`), so from here the two are not compared.
        fn inserting_beside_wide(&self) -> bool {
            let grid = self.term.grid();
            self.term.mode().contains(TermMode::INSERT)
                && (0..grid.screen_lines() as i32).any(|l| {
                    grid[Line(l)][..]
                        .iter()
                        .any(|c| c.flags.contains(Flags::WIDE_CHAR))
                })
        }

        /// No damaged double-width pair anywhere, a spacer in another style than its character
        /// included (the scrollback normalises those, and rows can come back from it).
        fn well_formed(&self) -> bool {
            let grid = self.term.grid();
            (-(grid.history_size() as i32)..grid.screen_lines() as i32).all(|l| {
                let cells = &grid[Line(l)][..];
                cells.iter().enumerate().all(|(i, c)| {
                    let wide = c.flags.contains(Flags::WIDE_CHAR);
                    let spacer = c.flags.contains(Flags::WIDE_CHAR_SPACER);
                    let width = c.c.width();
                    if wide {
                        width == Some(2)
                            && cells.get(i + 1).is_some_and(|n| {
                                n.flags.contains(Flags::WIDE_CHAR_SPACER)
                                    && (n.fg, n.bg, n.flags - Flags::WIDE_CHAR_SPACER)
                                        == (c.fg, c.bg, c.flags - Flags::WIDE_CHAR)
                                    && n.underline_color() == c.underline_color()
                                    && n.hyperlink() == c.hyperlink()
                            })
                    } else if spacer {
                        i > 0 && cells[i - 1].flags.contains(Flags::WIDE_CHAR)
                    } else {
                        width != Some(2) && width != Some(0) && c.c != '\0'
                    }
                })
            })
        }
    }

    use unicode_width::UnicodeWidthChar;

    /// A xorshift generator of numbers below `n`, seeded.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// What [`compare_with_native`] draws from.
    struct Streams<'a> {
        seed: u64,
        count: usize,
        /// Column and row counts to draw from, inclusive.
        cols: (usize, usize),
        rows: (usize, usize),
        histories: &'a [usize],
        pieces: &'a [&'a [u8]],
        /// Resizes change the width too (not while the alternate screen is shown).
        widths: bool,
    }

    /// Feeds random streams of `pieces` (and resizes) to the emulator and to alacritty keeping
    /// its own history, comparing history, screen (cell for cell) and cursor after each piece.
    /// For a width change alacritty reflows with an unbounded history, trimmed to its limit
    /// after, as the emulator does. Returns (streams, comparisons, the logs of the streams
    /// that differed).
    fn compare_with_native(s: Streams) -> (usize, usize, Vec<String>) {
        let mut next = xorshift(s.seed);
        let mut draw = |(lo, hi): (usize, usize)| lo + next((hi - lo + 1) as u64) as usize;
        let (mut compared, mut streams, mut differed) = (0, 0, Vec::new());
        for _ in 0..s.count {
            let (cols, rows) = (draw(s.cols), draw(s.rows));
            let history = s.histories[draw((0, s.histories.len() - 1))];
            let mut e = Emulator::with_scrollback(cols, rows, history);
            let mut n = Native::new(cols, rows, history);
            let mut log = format!("{cols}x{rows} history {history}:");
            streams += 1;
            for _ in 0..60 {
                if draw((0, 11)) == 0 {
                    let alternate = n.term.mode().contains(TermMode::ALT_SCREEN);
                    let rows = draw(s.rows);
                    let cols = if s.widths && !alternate {
                        draw(s.cols)
                    } else {
                        n.term.columns()
                    };
                    log += &format!(" resize({cols},{rows})");
                    e.resize(cols, rows);
                    n.resize(cols, rows, history);
                } else {
                    if n.inserting_beside_wide() {
                        break;
                    }
                    let piece = s.pieces[draw((0, s.pieces.len() - 1))];
                    if n.differs_deliberately(piece) {
                        break;
                    }
                    log += &format!(" {:?}", String::from_utf8_lossy(piece));
                    e.advance(piece);
                    e.expire_sync();
                    n.advance(piece);
                }
                if !n.well_formed() {
                    break;
                }
                let ours = e.snapshot_with_scrollback();
                let (rows, cursor) = n.rows();
                if ours.rows != rows {
                    let i = (0..ours.rows.len().max(rows.len()))
                        .find(|&i| ours.rows.get(i) != rows.get(i))
                        .unwrap_or(0);
                    fn text(r: Option<&Vec<Cell>>) -> Option<Vec<&str>> {
                        r.map(|r| r.iter().map(|c| c.text.as_str()).collect())
                    }
                    let cols = e.cols();
                    let j = (0..cols)
                        .find(|&j| ours.rows.get(i).map(|r| &r[j]) != rows.get(i).map(|r| &r[j]))
                        .unwrap_or(0);
                    differed.push(format!(
                        "{log}\nrow {i} of {} (history {}), cell {j}:\nours   {:?} {:?}\nnative {:?} {:?}",
                        rows.len(),
                        n.term.grid().history_size(),
                        text(ours.rows.get(i)),
                        ours.rows.get(i).map(|r| &r[j]),
                        text(rows.get(i)),
                        rows.get(i).map(|r| &r[j]),
                    ));
                    break;
                }
                if (ours.cursor.row, ours.cursor.col) != cursor
                    || e.history_size() != n.term.grid().history_size()
                {
                    differed.push(format!("{log}\ncursor {:?} native {cursor:?}", ours.cursor));
                    break;
                }
                compared += 1;
            }
        }
        (streams, compared, differed)
    }

    /// Random output (and height changes) into the emulator and into alacritty keeping its own
    /// history give the same history and screen, cell for cell, and the same cursor.
    #[test]
    fn the_compact_scrollback_matches_alacritty_s_own_history() {
        let pieces: [&[u8]; 42] = [
            b"\x1b[4h",
            b"\x1b[4l",
            b"\x1b[2P",
            b"\x1b[3X",
            b"\x1b[K",
            b"\x1b[1K",
            b"\x1bH",
            b"\x1bc",
            b"\x1b[?6h",
            b"\x1b[?3h",
            b"\x1b[2@",
            b"\x1b[2;1H\x1bM",
            "中".as_bytes(),
            "😀".as_bytes(),
            "e\u{301}".as_bytes(),
            b"abc",
            b"xy",
            b"\r\n",
            b"\n",
            b"\r",
            b"\t",
            b"\x08",
            b"\x1b[31m",
            b"\x1b[42;1m",
            b"\x1b[0m",
            b"\x1b[4:3;58:2::1:2:3m",
            b"\x1b]8;;https://a.example\x1b\\L\x1b]8;;\x1b\\",
            b"\x1b[2J",
            b"\x1b[3J",
            b"\x1b[2S",
            b"\x1b[M",
            b"\x1b[3L",
            b"\x1b[H",
            b"\x1b[2;3r",
            b"\x1b[r",
            b"\x1b[1;2r",
            b"\x1b[5;1H",
            b"\x1b[?7l",
            b"\x1b[?7h",
            b"\x1b[?1049h",
            b"\x1b[?1049l",
            b"\x1bD",
        ];
        let (streams, compared, differed) = compare_with_native(Streams {
            seed: 15,
            count: 3000,
            cols: (2, 8),
            rows: (1, 6),
            histories: &[0, 1, 3, 7, 50],
            pieces: &pieces,
            widths: false,
        });
        assert!(differed.is_empty(), "{}", differed.join("\n\n"));
        assert!(
            compared > streams * 20,
            "{compared} comparisons in {streams} streams"
        );
    }

    /// Width changes with text, double-width characters and colours, at everyday sizes and
    /// scrollback limits: the scrollback is re-wrapped as alacritty reflows its own history.
    /// (Measured: 2 of 30 000 streams differ, in which blank row a reflow keeps; a few percent
    /// do with limits under 10 rows, where a limit cuts a line that a reflow then joins.)
    #[test]
    fn width_changes_reflow_the_scrollback_as_alacritty_does() {
        let pieces: [&[u8]; 6] = [
            b"The quick brown fox jumps over the lazy dog; ",
            "日本語のテキストです、".as_bytes(),
            "e\u{301}😀".as_bytes(),
            b"\r\n",
            b"\x1b[1;32mok\x1b[0m ",
            b"\x1b]8;;https://a.example\x1b\\L\x1b]8;;\x1b\\",
        ];
        let (streams, compared, differed) = compare_with_native(Streams {
            seed: 0x2545_f491_4f6c_dd1d,
            count: 700,
            cols: (20, 80),
            rows: (5, 25),
            histories: &[50, 1000],
            pieces: &pieces,
            widths: true,
        });
        assert!(
            differed.len() * 1000 <= streams,
            "{} of {streams} streams differ:\n{}",
            differed.len(),
            differed.join("\n\n")
        );
        assert!(
            compared > streams * 20,
            "{compared} comparisons in {streams} streams"
        );
    }

    /// The size of the alternate screen's grid while the primary screen is shown.
    fn alternate_size(e: &mut Emulator) -> (usize, usize) {
        let saved = e.term.grid().saved_cursor.clone();
        e.term.swap_alt();
        let size = (e.term.columns(), e.term.screen_lines());
        e.term.swap_alt();
        e.term.grid_mut().saved_cursor = saved;
        size
    }

    /// The alternate screen takes memory only while it is shown: an idle terminal keeps one
    /// screen of cells, not two.
    #[test]
    fn the_alternate_screen_is_made_when_entered_and_let_go_when_left() {
        let mut e = Emulator::new(10, 3);
        assert_eq!(alternate_size(&mut e), (1, 1));
        e.advance(b"primary\x1b[2;3H\x1b[?1049h");
        let alt = e.snapshot();
        assert!(alt.modes.alternate_screen);
        assert_eq!(alt.text(), "");
        assert_eq!((alt.cursor.row, alt.cursor.col), (1, 2));
        e.advance(b"\x1b[3;8Halt");
        assert_eq!(e.snapshot().text(), "\n\n       alt");
        e.advance(b"\x1b[?1049l");
        let primary = e.snapshot();
        assert_eq!(primary.text(), "primary");
        assert_eq!((primary.cursor.row, primary.cursor.col), (1, 2));
        assert_eq!(alternate_size(&mut e), (1, 1));
        e.resize(12, 4);
        assert_eq!(alternate_size(&mut e), (1, 1));
        e.advance(b"\x1b[?1049h\x1b[4;12HZ");
        let alt = e.snapshot();
        assert_eq!((alt.width, alt.height), (12, 4));
        assert_eq!(alt.text(), "\n\n\n           Z");
        e.advance(b"\x1bc");
        assert!(!e.snapshot().modes.alternate_screen);
        assert_eq!(alternate_size(&mut e), (1, 1));
    }

    /// Row `row` of `s` as (text, width) per cell, up to the last non-blank cell.
    fn cells(s: &Screen, row: usize) -> Vec<(String, u8)> {
        let r = &s.rows[row];
        let end = r.iter().rposition(|c| c.text != " ").map_or(0, |i| i + 1);
        r[..end].iter().map(|c| (c.text.clone(), c.width)).collect()
    }

    fn owned(cells: &[(&str, u8)]) -> Vec<(String, u8)> {
        cells.iter().map(|(t, w)| (t.to_string(), *w)).collect()
    }

    /// Issue 14 item 2: emoji sequences take the cells modern terminals give them (mode 2027,
    /// the default): one cluster of two cells, the cursor after it.
    #[test]
    fn emoji_sequences_are_one_two_cell_cluster() {
        for (input, cluster) in [
            ("\u{2764}\u{fe0f}", "\u{2764}\u{fe0f}"),
            ("1\u{fe0f}\u{20e3}", "1\u{fe0f}\u{20e3}"),
            ("👨\u{200d}👩\u{200d}👧", "👨\u{200d}👩\u{200d}👧"),
            ("🏳\u{fe0f}\u{200d}🌈", "🏳\u{fe0f}\u{200d}🌈"),
            ("👍🏽", "👍🏽"),
            ("🇺🇸", "🇺🇸"),
        ] {
            let s = screen(&format!("a{input}|"));
            assert_eq!(
                cells(&s, 0),
                owned(&[("a", 1), (cluster, 2), ("", 0), ("|", 1)]),
                "{input:?}"
            );
            assert_eq!((s.cursor.row, s.cursor.col), (0, 4), "{input:?}");
            assert!(s.modes.grapheme_clusters);
        }
        // Two flags are two clusters; a lone regional indicator and text presentation (VS15)
        // are one cell.
        let s = screen("🇺🇸🇬🇧|🇺|⌚\u{fe0e}|");
        assert_eq!(
            cells(&s, 0),
            owned(&[
                ("🇺🇸", 2),
                ("", 0),
                ("🇬🇧", 2),
                ("", 0),
                ("|", 1),
                ("🇺", 1),
                ("|", 1),
                ("⌚\u{fe0e}", 1),
                ("|", 1),
            ])
        );
    }

    /// With mode 2027 reset every code point takes its own `wcwidth` cells (the legacy rule,
    /// for programs that count so); DECRQM reports the mode, and a reset brings back the
    /// default, which [`Emulator::set_grapheme_clusters`] chooses.
    #[test]
    fn mode_2027_selects_the_legacy_widths_and_is_reported() {
        let mut e = Emulator::new(20, 3);
        e.advance(
            "\x1b[?2027$p\x1b[?2027l\x1b[?2027$p\u{2764}\u{fe0f}|🇺🇸|👨\u{200d}👩|".as_bytes(),
        );
        assert_eq!(
            String::from_utf8(e.take_replies()).unwrap(),
            "\x1b[?2027;1$y\x1b[?2027;2$y"
        );
        let s = e.snapshot();
        assert!(!s.modes.grapheme_clusters);
        assert_eq!(
            cells(&s, 0),
            owned(&[
                ("\u{2764}\u{fe0f}", 1),
                ("|", 1),
                ("🇺", 1),
                ("🇸", 1),
                ("|", 1),
                ("👨\u{200d}", 2),
                ("", 0),
                ("👩", 2),
                ("", 0),
                ("|", 1),
            ])
        );
        e.advance(b"\x1bc\x1b[?2027$p");
        assert_eq!(e.take_replies(), b"\x1b[?2027;1$y");
        e.set_grapheme_clusters(false);
        e.advance(b"\x1b[?2027h\x1bc\x1b[?2027$p");
        assert_eq!(e.take_replies(), b"\x1b[?2027;2$y");
    }

    /// A cluster that becomes two cells in the last column moves to the next row as a
    /// double-width character does (a spacer left behind); with wrapping off it stays one
    /// cell. Written again in place, it comes out the same, and text written over it leaves
    /// nothing behind.
    #[test]
    fn clusters_widened_at_the_margin_wrap_and_redraw_the_same() {
        let mut e = Emulator::new(5, 3);
        e.advance("abcd\u{2764}\u{fe0f}x".as_bytes());
        let s = e.snapshot();
        assert_eq!(
            cells(&s, 0),
            owned(&[("a", 1), ("b", 1), ("c", 1), ("d", 1)])
        );
        assert!(s.wraps(0));
        assert_eq!(
            cells(&s, 1),
            owned(&[("\u{2764}\u{fe0f}", 2), ("", 0), ("x", 1)])
        );
        assert_eq!((s.cursor.row, s.cursor.col), (1, 3));
        let mut e = Emulator::new(5, 3);
        e.advance("\x1b[?7labcd\u{2764}\u{fe0f}".as_bytes());
        assert_eq!(
            cells(&e.snapshot(), 0),
            owned(&[
                ("a", 1),
                ("b", 1),
                ("c", 1),
                ("d", 1),
                ("\u{2764}\u{fe0f}", 1)
            ])
        );
        let mut e = Emulator::new(10, 2);
        let line = "🇺🇸a\u{2764}\u{fe0f}b";
        e.advance(line.as_bytes());
        let once = e.snapshot();
        e.advance(format!("\r{line}").as_bytes());
        assert_eq!(e.snapshot(), once);
        e.advance(b"\rxyzuvw");
        assert_eq!(e.snapshot().row_text(0), "xyzuvw");
        assert_consistent(&e, "redrawn");
    }

    /// The widened cluster keeps its style, link and colours in both cells; in insert mode
    /// the text after it moves right to make room.
    #[test]
    fn widened_clusters_keep_their_style_and_insert_mode_makes_room() {
        let s = screen(
            "\x1b[31;1m\x1b]8;;https://a.example\x1b\\\u{2764}\x1b[32m\u{fe0f}\x1b]8;;\x1b\\",
        );
        let r = &s.rows[0];
        assert_eq!((r[0].text.as_str(), r[0].width), ("\u{2764}\u{fe0f}", 2));
        for cell in &r[..2] {
            assert_eq!(cell.fg, Color::Named(1));
            assert!(cell.bold);
            assert_eq!(
                cell.link.as_ref().map(|l| l.uri.as_str()),
                Some("https://a.example")
            );
        }
        let s = screen("abc\x1b[1G\x1b[4h\u{2764}\u{fe0f}");
        assert_eq!(
            cells(&s, 0),
            owned(&[
                ("\u{2764}\u{fe0f}", 2),
                ("", 0),
                ("a", 1),
                ("b", 1),
                ("c", 1)
            ])
        );
        assert_eq!(s.cursor.col, 2);
    }

    /// Clusters keep their cells through the scrollback and width changes (the compact
    /// scrollback reads them back as the policy's clusters).
    #[test]
    fn clusters_keep_their_cells_in_the_scrollback_and_through_reflow() {
        let mut e = Emulator::new(8, 2);
        e.advance(
            "🇺🇸x\r\n\u{2764}\u{fe0f}y\r\n👨\u{200d}💻z\r\n⌚\u{fe0e}w\r\n\x1b[?2027l🇺🇸v\r\n\r\n"
                .as_bytes(),
        );
        let s = e.snapshot_with_scrollback();
        let expect = [
            owned(&[("🇺🇸", 2), ("", 0), ("x", 1)]),
            owned(&[("\u{2764}\u{fe0f}", 2), ("", 0), ("y", 1)]),
            owned(&[("👨\u{200d}💻", 2), ("", 0), ("z", 1)]),
            owned(&[("⌚\u{fe0e}", 1), ("w", 1)]),
            owned(&[("🇺", 1), ("🇸", 1), ("v", 1)]),
        ];
        for (i, row) in expect.iter().enumerate() {
            assert_eq!(&cells(&s, i), row, "row {i}");
        }
        e.resize(3, 2);
        e.resize(8, 2);
        let s = e.snapshot_with_scrollback();
        for (i, row) in expect.iter().enumerate() {
            assert_eq!(&cells(&s, i), row, "row {i} after reflow");
        }
        assert_consistent(&e, "scrollback");
    }

    /// A cluster the policy makes two cells wide is placed exactly as a double-width
    /// character: random streams of text, cursor moves, erases, inserts, line feeds, wraps and
    /// scrolling, once with emoji clusters and once with `中` in their place, give the same
    /// cell widths, wrapped rows, scrollback and cursor, at every small size. With width
    /// changes too (reflow), all but a few streams do (alacritty's reflow of a row ending in a
    /// blank erased from half of a double-width pair is not the same as of a blank).
    #[test]
    fn clusters_are_placed_as_double_width_characters_are() {
        const CLUSTERS: [&str; 5] = [
            "\u{2764}\u{fe0f}",
            "🇺🇸",
            "👨\u{200d}💻",
            "👍🏽",
            "1\u{fe0f}\u{20e3}",
        ];
        let pieces: [&str; 16] = [
            "ab",
            "xyz",
            "\r\n",
            "\r",
            "\n",
            "\t",
            "\x1b[5G",
            "\x1b[H",
            "\x1b[2;3H",
            "\x1b[K",
            "\x1b[2J",
            "\x1b[1P",
            "\x1b[2@",
            "\x1bM",
            "C",
            "C",
        ];
        let geometry = |e: &Emulator| {
            let s = e.snapshot_with_scrollback();
            let widths: Vec<Vec<u8>> = s
                .rows
                .iter()
                .map(|r| r.iter().map(|c| c.width).collect())
                .collect();
            (widths, s.wrapped, s.scrollback_rows, s.cursor)
        };
        for resizes in [false, true] {
            let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
            let (streams, mut differed) = (1500, Vec::new());
            for _ in 0..streams {
                let (cols, rows) = (2 + next(7) as usize, 1 + next(4) as usize);
                let mut ours = Emulator::with_scrollback(cols, rows, 20);
                let mut wide = Emulator::with_scrollback(cols, rows, 20);
                let mut log = format!("{cols}x{rows}:");
                for _ in 0..30 {
                    if resizes && next(10) == 0 {
                        let (c, r) = (2 + next(7) as usize, 1 + next(4) as usize);
                        log += &format!(" resize({c},{r})");
                        ours.resize(c, r);
                        wide.resize(c, r);
                        continue;
                    }
                    let piece = pieces[next(pieces.len() as u64) as usize];
                    let (a, b) = if piece == "C" {
                        (CLUSTERS[next(CLUSTERS.len() as u64) as usize], "中")
                    } else {
                        (piece, piece)
                    };
                    log += &format!(" {a:?}");
                    ours.advance(a.as_bytes());
                    wide.advance(b.as_bytes());
                    if geometry(&ours) != geometry(&wide) {
                        differed.push(log.clone());
                        break;
                    }
                }
                assert_consistent(&ours, &log);
            }
            let allowed = if resizes { streams / 100 } else { 0 };
            assert!(
                differed.len() <= allowed,
                "resizes {resizes}: {} of {streams} streams differ:\n{}",
                differed.len(),
                differed.join("\n")
            );
        }
    }

    /// Issue 14 item 5: DECRQM `?2026` says "set" while a frame is open, answered at once
    /// (not when the frame ends), and "reset" outside one.
    #[test]
    fn decrqm_2026_reports_an_open_frame_at_once() {
        let mut e = Emulator::new(10, 2);
        e.advance(b"\x1b[?2026$p");
        assert_eq!(e.take_replies(), b"\x1b[?2026;2$y");
        e.advance(b"\x1b[?2026hdraw\x1b[?2026$p");
        assert_eq!(e.take_replies(), b"\x1b[?2026;1$y");
        assert_eq!(e.snapshot().text(), "");
        e.advance(b"\x1b[?2026l\x1b[?2026$p");
        assert_eq!(e.take_replies(), b"\x1b[?2026;2$y");
        assert_eq!(e.snapshot().text(), "draw");
    }

    /// A frame may stay open for [`SYNC_TIMEOUT`] (1 s, as terminals allow), from the last
    /// `CSI ? 2026 h`; ending it by force is counted and reported in the modes.
    #[test]
    fn unterminated_frames_end_after_a_second_and_are_counted() {
        let mut e = Emulator::new(10, 2);
        let before = Instant::now();
        e.advance(b"\x1b[?2026hpartial");
        let after = Instant::now();
        let deadline = e.sync_deadline().expect("a frame is open");
        assert!(deadline >= before + SYNC_TIMEOUT && deadline <= after + SYNC_TIMEOUT);
        assert_eq!(SYNC_TIMEOUT, Duration::from_secs(1));
        e.expire_sync_if_due(deadline - Duration::from_millis(1));
        assert_eq!(e.snapshot().text(), "");
        e.expire_sync_if_due(deadline);
        let s = e.snapshot();
        assert_eq!(s.text(), "partial");
        assert_eq!(s.modes.forced_sync_ends, 1);
        // A frame ended by the program is not counted, nor is expiring with none open.
        e.advance(b"\x1b[?2026h!\x1b[?2026l");
        e.expire_sync();
        assert_eq!(e.forced_sync_ends(), 1);
    }

    #[test]
    fn title_comes_from_osc() {
        assert_eq!(screen("\x1b]2;hello\x07").title.as_deref(), Some("hello"));
    }
}
