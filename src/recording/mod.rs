//! Recordings: a terminal's output kept with its timing, and the frames derived from it.
//!
//! A [`Recording`] is what `capture` keeps when it records (`-v`, `--save-cast`, a video `-o`),
//! what an asciicast file holds ([`asciicast`]), and what an animation is drawn from. Times are
//! offsets from the start of the recording. [`frames`] replays the output through the
//! [`Emulator`] and keeps a [`Frame`] only where the rendered content changes (the cursor's
//! blink phase is never part of a screen, so it never makes a frame), at most `fps` a second:
//! time is cut into windows of `1/fps` s, and the state at the end of a window (the latest
//! state in it) is the window's frame, shown from the window's start.
//!
//! Layering: above `term` (the emulator) and beside `render`; no I/O here but reading and
//! writing bytes given to it (see [`asciicast`]) and the `ffmpeg` pipe ([`ffmpeg`]).

pub mod asciicast;
pub mod encode;
pub mod ffmpeg;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use crate::term::{Cell, Cursor, Emulator, Modes, Rgb, Screen};

/// What happened at one moment of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// Bytes the program wrote to the terminal (asciicast `"o"`).
    Output(Vec<u8>),
    /// The terminal was resized to `cols` × `rows` cells (asciicast `"r"`).
    Resize { cols: u16, rows: u16 },
    /// Bytes typed into the terminal (asciicast `"i"`): kept, never drawn.
    Input(Vec<u8>),
    /// A named moment (asciicast `"m"`): kept, never drawn.
    Marker(String),
}

/// One event, at `time` from the start of the recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub time: Duration,
    pub kind: EventKind,
}

/// A terminal's output with its timing.
///
/// Invariant kept by every constructor here: event times never decrease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// Terminal size at the start, cells.
    pub cols: u16,
    pub rows: u16,
    /// Unix time of the start, seconds (asciicast `timestamp`), when known.
    pub timestamp: Option<u64>,
    /// Events in time order.
    pub events: Vec<Event>,
}

impl Recording {
    /// An empty recording of a `cols` × `rows` terminal.
    pub fn new(cols: u16, rows: u16, timestamp: Option<u64>) -> Recording {
        Recording {
            cols,
            rows,
            timestamp,
            events: Vec::new(),
        }
    }

    /// The time of the last event (zero when there is none).
    pub fn duration(&self) -> Duration {
        self.events.last().map_or(Duration::ZERO, |e| e.time)
    }

    /// All output bytes in order (what `asciinema cat` prints).
    pub fn output(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for e in &self.events {
            if let EventKind::Output(b) = &e.kind {
                out.extend_from_slice(b);
            }
        }
        out
    }

    /// Appends an event at `time`; a time before the last event's is raised to it (clocks
    /// read on different threads may disagree by a hair).
    pub fn push(&mut self, time: Duration, kind: EventKind) {
        let time = time.max(self.duration());
        self.events.push(Event { time, kind });
    }

    /// The recording played `speed` times as fast (`--speed`; > 0).
    pub fn with_speed(mut self, speed: f64) -> Recording {
        for e in &mut self.events {
            e.time = Duration::from_secs_f64(e.time.as_secs_f64() / speed);
        }
        self
    }

    /// Every pause between events (and before the first) capped at `limit`
    /// (`--idle-time-limit`, as asciinema does).
    pub fn with_idle_limit(mut self, limit: Duration) -> Recording {
        let (mut prev_in, mut prev_out) = (Duration::ZERO, Duration::ZERO);
        for e in &mut self.events {
            let gap = e.time.saturating_sub(prev_in).min(limit);
            prev_in = e.time;
            prev_out += gap;
            e.time = prev_out;
        }
        self
    }
}

/// Records output as it arrives: times are taken from `start`.
#[derive(Debug)]
pub struct Recorder {
    start: Instant,
    recording: Recording,
}

impl Recorder {
    /// A recorder for a `cols` × `rows` terminal started at `start` (Unix time `timestamp`).
    pub fn new(cols: u16, rows: u16, start: Instant, timestamp: Option<u64>) -> Recorder {
        Recorder {
            start,
            recording: Recording::new(cols, rows, timestamp),
        }
    }

    /// Output `bytes` read at `at`.
    pub fn output(&mut self, at: Instant, bytes: &[u8]) {
        let time = at.saturating_duration_since(self.start);
        // Chunks read in the same microsecond are one event.
        if let Some(Event {
            time: last,
            kind: EventKind::Output(b),
        }) = self.recording.events.last_mut()
        {
            if last.as_micros() == time.as_micros() {
                b.extend_from_slice(bytes);
                return;
            }
        }
        self.recording.push(time, EventKind::Output(bytes.to_vec()));
    }

    /// The recording so far.
    pub fn finish(self) -> Recording {
        self.recording
    }
}

/// Index of a row in a [`Rows`] table.
pub type RowId = u32;

/// The distinct rows of an animation, each stored once (interned): a [`Frame`] lists its rows
/// as [`RowId`]s, so a long recording whose frames repeat rows (a progress line redrawn over a
/// static screen, a scrolling log) holds every distinct row once, not once per frame.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    table: Vec<Vec<Cell>>,
    /// Hash of a row's cells → the ids of the rows with that hash.
    index: HashMap<u64, Vec<RowId>>,
}

impl Rows {
    /// The id of `cells`, stored now when no equal row is stored yet.
    pub fn intern(&mut self, cells: Vec<Cell>) -> RowId {
        // FxHash: rows are hashed once per frame, and SipHash was most of a long render.
        let mut h = rustc_hash::FxHasher::default();
        cells.hash(&mut h);
        let Rows { table, index } = self;
        let bucket = index.entry(h.finish()).or_default();
        if let Some(&id) = bucket.iter().find(|&&id| table[id as usize] == cells) {
            return id;
        }
        let id = RowId::try_from(table.len()).expect("fewer than 2^32 distinct rows");
        table.push(cells);
        bucket.push(id);
        id
    }

    /// The cells of row `id` (an id this table gave).
    pub fn get(&self, id: RowId) -> &[Cell] {
        &self.table[id as usize]
    }

    /// Every stored row, indexed by [`RowId`].
    pub fn table(&self) -> &[Vec<Cell>] {
        &self.table
    }

    /// The stored rows, indexed by [`RowId`].
    pub fn into_table(self) -> Vec<Vec<Cell>> {
        self.table
    }

    /// How many distinct rows are stored.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no row is stored.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Whether row `id` draws anything (text or a non-default background).
    fn has_content(&self, id: RowId) -> bool {
        self.get(id).iter().any(|c| !c.is_blank())
    }
}

/// One picture of an animation, shown from `time` until the next frame: a viewport whose rows
/// are ids in its [`Frames`]' row table.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub time: Duration,
    /// Columns.
    pub width: usize,
    /// The viewport's rows, top to bottom (no scrollback).
    pub rows: Vec<RowId>,
    pub cursor: Cursor,
    /// Palette entries changed by OSC 4 (index, colour).
    pub palette_overrides: Vec<(u8, Rgb)>,
    /// The rows that soft-wrap ([`Screen::wrapped`]): drawn the same, but masking joins them
    /// so a secret split by a wrap is still found.
    pub wrapped: Vec<usize>,
}

impl Frame {
    /// Whether two frames draw the same (their times aside; cursor blink never is part of a
    /// frame).
    pub fn same_picture(&self, o: &Frame) -> bool {
        self.width == o.width
            && self.rows == o.rows
            && self.cursor == o.cursor
            && self.palette_overrides == o.palette_overrides
    }
}

/// The frames of an animation and the distinct rows they are drawn from.
#[derive(Debug, Clone, Default)]
pub struct Frames {
    pub rows: Rows,
    /// In time order.
    pub list: Vec<Frame>,
}

impl Frames {
    /// `screen` as a frame at `time`, its rows interned here (the frame is not added).
    pub fn frame(&mut self, time: Duration, screen: Screen) -> Frame {
        Frame {
            time,
            width: screen.width,
            rows: screen
                .rows
                .into_iter()
                .map(|r| self.rows.intern(r))
                .collect(),
            cursor: screen.cursor,
            palette_overrides: screen.palette_overrides,
            wrapped: screen.wrapped,
        }
    }

    /// Adds `screen` as a frame at `time` unless it draws the same as the last frame.
    pub fn push_changed(&mut self, time: Duration, screen: Screen) {
        let f = self.frame(time, screen);
        if self.list.last().is_none_or(|l| !l.same_picture(&f)) {
            self.list.push(f);
        }
    }

    /// Frame `f`'s picture as a screen, for the painters and masking (title and modes are not
    /// kept: no painter draws them).
    pub fn screen(&self, f: &Frame) -> Screen {
        Screen {
            width: f.width,
            height: f.rows.len(),
            rows: f
                .rows
                .iter()
                .map(|&id| self.rows.get(id).to_vec())
                .collect(),
            scrollback_rows: 0,
            cursor: f.cursor,
            modes: Modes::default(),
            title: None,
            palette_overrides: f.palette_overrides.clone(),
            wrapped: f.wrapped.clone(),
        }
    }

    /// Index of the last row of `f` that draws anything, `None` when every row is blank
    /// (as [`Screen::last_content_row`]).
    pub fn last_content_row(&self, f: &Frame) -> Option<usize> {
        f.rows.iter().rposition(|&id| self.rows.has_content(id))
    }

    /// The frames as a recording that draws them, for a `.cast` of frames kept from settled
    /// screens (a scenario's `record` block): the first frame painted whole, each later frame
    /// repainting only the rows that changed (CUP, SGR and EL, as [`crate::term::ansi`]), its
    /// OSC 4 palette changes, then the cursor (DECSCUSR, CUP, DECTCEM); a frame of another size
    /// is a resize (`"r"`) and a whole repaint. A last empty output at `end` (when later than
    /// the last frame) holds the last picture that long. The terminal is the first frame's size.
    pub fn to_recording(&self, end: Duration) -> Recording {
        use std::fmt::Write;
        let size = |f: &Frame| (f.width as u16, f.rows.len() as u16);
        let (cols, rows) = self.list.first().map_or((80, 24), size);
        let mut rec = Recording::new(cols, rows, None);
        let mut prev: Option<&Frame> = None;
        for f in &self.list {
            let mut out = String::from("\x1b[?25l");
            let whole = prev.is_none_or(|p| size(p) != size(f));
            if whole {
                if prev.is_some() {
                    let (cols, rows) = size(f);
                    rec.push(f.time, EventKind::Resize { cols, rows });
                }
                out.push_str("\x1b[0m\x1b[H\x1b[2J");
            }
            let old_palette = prev.map_or(&[][..], |p| p.palette_overrides.as_slice());
            for &(i, c) in &f.palette_overrides {
                if !old_palette.contains(&(i, c)) {
                    let _ = write!(
                        out,
                        "\x1b]4;{i};rgb:{:02x}/{:02x}/{:02x}\x1b\\",
                        c.r, c.g, c.b
                    );
                }
            }
            for (r, &id) in f.rows.iter().enumerate() {
                if whole || prev.is_some_and(|p| p.rows.get(r) != Some(&id)) {
                    crate::term::ansi::paint_row(&mut out, r, self.rows.get(id), f.width);
                }
            }
            let c = f.cursor;
            let _ = write!(
                out,
                "\x1b[{} q\x1b[{};{}H",
                crate::term::ansi::cursor_style(c.shape),
                c.row + 1,
                c.col + 1
            );
            if c.visible {
                out.push_str("\x1b[?25h");
            }
            rec.push(f.time, EventKind::Output(out.into_bytes()));
            prev = Some(f);
        }
        if prev.is_some_and(|p| end > p.time) {
            rec.push(end, EventKind::Output(Vec::new()));
        }
        rec
    }

    /// How many frames there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there is no frame.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Why frames cannot be derived or chosen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FrameError {
    #[error("--fps must be from 1 to 120, got {0}")]
    Fps(u32),
    #[error("--time {start}-{end}: the range is outside the recording (0-{total:.3} s) or empty")]
    Range { start: f64, end: f64, total: f64 },
    #[error("--frame {index}: the animation has {count} frames (0-{})", count - 1)]
    FramePastEnd { index: usize, count: usize },
    #[error("--time {time}: the recording is {total:.3} s long")]
    TimePastEnd { time: f64, total: f64 },
}

/// The frames of `recording` at most `fps` a second (see the module doc). The first frame is
/// at zero (the blank terminal when nothing was written by then); trailing frames whose screen
/// is blank (a program leaving the alternate screen on an empty terminal) are dropped when an
/// earlier frame has content, so the last frame is the last meaningful one.
///
/// Errors: [`FrameError::Fps`] unless `fps` is 1–120.
pub fn frames(recording: &Recording, fps: u32) -> Result<Frames, FrameError> {
    if !(1..=120).contains(&fps) {
        return Err(FrameError::Fps(fps));
    }
    let window = |t: Duration| (t.as_micros() * fps as u128 / 1_000_000) as u64;
    let window_start = |w: u64| Duration::from_micros(w * 1_000_000 / fps as u64);
    let mut emulator = Emulator::new(recording.cols as usize, recording.rows as usize);
    let mut out = Frames::default();
    let keep = |out: &mut Frames, time: Duration, screen: Screen| out.push_changed(time, screen);
    let mut open: Option<u64> = None;
    for e in &recording.events {
        let w = window(e.time);
        if let Some(o) = open.filter(|&o| o != w) {
            keep(&mut out, window_start(o), emulator.snapshot());
        }
        if out.is_empty() && open.is_none() && w > 0 {
            keep(&mut out, Duration::ZERO, emulator.snapshot());
        }
        open = Some(w);
        match &e.kind {
            EventKind::Output(b) => {
                emulator.advance(b);
                let _ = emulator.take_replies();
            }
            EventKind::Resize { cols, rows } => emulator.resize(*cols as usize, *rows as usize),
            EventKind::Input(_) | EventKind::Marker(_) => {}
        }
    }
    if emulator.sync_deadline().is_some() {
        emulator.expire_sync();
    }
    keep(
        &mut out,
        open.map_or(Duration::ZERO, window_start),
        emulator.snapshot(),
    );
    while out.len() > 1
        && out
            .list
            .last()
            .is_some_and(|f| out.last_content_row(f).is_none())
        && out.list.iter().any(|f| out.last_content_row(f).is_some())
    {
        out.list.pop();
    }
    Ok(out)
}

/// The frames from `start` to `end` (`--time START-END`), shifted to begin at zero: the state
/// just before `start` is the first frame.
///
/// Errors: [`FrameError::Range`] when the range is empty or starts after the recording ends.
pub fn trim(
    frames: Frames,
    total: Duration,
    start: Duration,
    end: Duration,
) -> Result<Frames, FrameError> {
    if end <= start || start > total {
        return Err(FrameError::Range {
            start: start.as_secs_f64(),
            end: end.as_secs_f64(),
            total: total.as_secs_f64(),
        });
    }
    let first = frames
        .list
        .iter()
        .rposition(|f| f.time <= start)
        .unwrap_or(0);
    let list = frames
        .list
        .into_iter()
        .enumerate()
        .filter(|(i, f)| *i >= first && f.time < end)
        .map(|(_, mut f)| {
            f.time = f.time.saturating_sub(start);
            f
        })
        .collect();
    Ok(Frames {
        rows: frames.rows,
        list,
    })
}

/// The frame shown at `time` (`--time T`).
///
/// Errors: [`FrameError::TimePastEnd`] when `time` is after `total`.
pub fn frame_at(frames: &[Frame], total: Duration, time: Duration) -> Result<&Frame, FrameError> {
    if time > total.max(frames.last().map_or(Duration::ZERO, |f| f.time)) {
        return Err(FrameError::TimePastEnd {
            time: time.as_secs_f64(),
            total: total.as_secs_f64(),
        });
    }
    let i = frames.iter().rposition(|f| f.time <= time).unwrap_or(0);
    Ok(&frames[i])
}

/// Frame `index` (`--frame N`, 0-based).
///
/// Errors: [`FrameError::FramePastEnd`].
pub fn frame_index(frames: &[Frame], index: usize) -> Result<&Frame, FrameError> {
    frames.get(index).ok_or(FrameError::FramePastEnd {
        index,
        count: frames.len(),
    })
}

/// Up to `n` frames spread evenly over `frames`, first and last included (`--json` samples).
pub fn sample(frames: &[Frame], n: usize) -> Vec<usize> {
    let len = frames.len();
    if len <= n {
        return (0..len).collect();
    }
    let mut out: Vec<usize> = (0..n).map(|i| i * (len - 1) / (n - 1).max(1)).collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(events: &[(u64, &str)]) -> Recording {
        let mut r = Recording::new(20, 3, None);
        for (ms, s) in events {
            r.push(
                Duration::from_millis(*ms),
                EventKind::Output(s.as_bytes().to_vec()),
            );
        }
        r
    }

    /// Row `row` of frame `i` as text.
    fn text(f: &Frames, i: usize, row: usize) -> String {
        f.screen(&f.list[i]).row_text(row)
    }

    #[test]
    fn a_frame_only_where_the_picture_changes() {
        // The second write draws nothing new (same text at the same place).
        let r = rec(&[(0, "a"), (500, "\x1b[1;1Ha"), (1000, "b")]);
        let f = frames(&r, 12).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f.list[0].time, Duration::ZERO);
        assert_eq!(f.list[1].time, Duration::from_secs(1));
        assert_eq!(text(&f, 1, 0), "ab");
    }

    #[test]
    fn the_latest_state_in_a_window_wins() {
        // 10 writes in 100 ms at 2 fps: one window, one frame with all of them.
        let evs: Vec<(u64, &str)> = (0..10).map(|i| (i * 10, "x")).collect();
        let f = frames(&rec(&evs), 2).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(text(&f, 0, 0), "xxxxxxxxxx");
    }

    #[test]
    fn a_blank_start_is_the_first_frame_and_a_blank_end_is_dropped() {
        let r = rec(&[
            (1000, "\x1b[?1049hhello"),
            (2000, "\x1b[2J\x1b[H\x1b[?1049l"),
        ]);
        let f = frames(&r, 12).unwrap();
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f.last_content_row(&f.list[0]), None);
        assert_eq!(text(&f, 1, 0), "hello");
    }

    /// Frames kept from screens, written as a recording and derived again, draw the same
    /// pictures at the same times: colours, attributes, wide characters, the cursor, an OSC 4
    /// palette change, a row that changed and rows that did not; the hold is the last event.
    #[test]
    fn frames_written_as_a_recording_derive_the_same_frames() {
        let mut e = Emulator::new(20, 3);
        let mut kept = Frames::default();
        let steps = [
            (0, "$ \x1b[1;32mls\x1b[0m"),
            (
                400,
                "\r\n\x1b[38;5;200;48;2;1;2;3mx\x1b[0m 漢字 \x1b[4mu\x1b[0m",
            ),
            (
                900,
                "\x1b]4;1;rgb:12/34/56\x1b\\\x1b[31mred\x1b[0m\r\n$ \x1b[?25l",
            ),
        ];
        for (ms, bytes) in steps {
            e.advance(bytes.as_bytes());
            kept.push_changed(Duration::from_millis(ms), e.snapshot());
        }
        let rec = kept.to_recording(Duration::from_millis(1900));
        assert_eq!(rec.duration(), Duration::from_millis(1900));
        // Later frames repaint only the rows that changed.
        let EventKind::Output(second) = &rec.events[1].kind else {
            panic!("output")
        };
        assert!(!String::from_utf8_lossy(second).contains("\x1b[1;1H"));
        // At 10 fps the windows start at whole 100 ms, as the frames' times do.
        let derived = frames(&rec, 10).unwrap();
        assert_eq!(derived.len(), kept.len());
        for (a, b) in derived.list.iter().zip(&kept.list) {
            assert_eq!(a.time, b.time);
            assert_eq!(a.cursor, b.cursor);
            assert_eq!(a.palette_overrides, b.palette_overrides);
            let (sa, sb) = (derived.screen(a), kept.screen(b));
            for r in 0..3 {
                assert_eq!(sa.row_text(r), sb.row_text(r));
                for (x, y) in sa.rows[r].iter().zip(&sb.rows[r]) {
                    assert_eq!(
                        (x.fg, x.bg, x.bold, x.underline, x.width),
                        (y.fg, y.bg, y.bold, y.underline, y.width),
                        "row {r} cell {:?}",
                        y.text
                    );
                }
            }
        }
    }

    #[test]
    fn fps_zero_is_an_error() {
        assert_eq!(frames(&rec(&[]), 0).unwrap_err(), FrameError::Fps(0));
    }

    #[test]
    fn idle_limit_caps_pauses_and_speed_divides_times() {
        let r = rec(&[(0, "a"), (5000, "b"), (5100, "c")]).with_idle_limit(Duration::from_secs(1));
        let times: Vec<u128> = r.events.iter().map(|e| e.time.as_millis()).collect();
        assert_eq!(times, [0, 1000, 1100]);
        let r = r.with_speed(2.0);
        let times: Vec<u128> = r.events.iter().map(|e| e.time.as_millis()).collect();
        assert_eq!(times, [0, 500, 550]);
    }

    #[test]
    fn trim_starts_with_the_state_before_start() {
        let r = rec(&[(0, "a"), (1000, "b"), (2000, "c"), (3000, "d")]);
        let f = frames(&r, 12).unwrap();
        let t = trim(
            f,
            r.duration(),
            Duration::from_millis(1500),
            Duration::from_secs(3),
        )
        .unwrap();
        let texts: Vec<String> = (0..t.len()).map(|i| text(&t, i, 0)).collect();
        assert_eq!(texts, ["ab", "abc"]);
        assert_eq!(t.list[0].time, Duration::ZERO);
        assert_eq!(t.list[1].time, Duration::from_millis(500));
        assert!(trim(
            t,
            r.duration(),
            Duration::from_secs(9),
            Duration::from_secs(10)
        )
        .is_err());
    }

    #[test]
    fn samples_include_both_ends() {
        let r = rec(&(0..40).map(|i| (i * 100, "x")).collect::<Vec<_>>());
        let f = frames(&r, 12).unwrap();
        let s = sample(&f.list, 12);
        assert_eq!(s.len(), 12);
        assert_eq!(s[0], 0);
        assert_eq!(*s.last().unwrap(), f.len() - 1);
    }

    #[test]
    fn repeated_rows_are_stored_once() {
        // A 20×3 screen: a fixed title row, a spinner row cycling through 4 pictures, and a
        // counter row with 10 values; 600 windows of 100 ms at 10 fps, each a new frame.
        let spin = ["|", "/", "-", "\\"];
        let evs: Vec<(u64, String)> = (0..600u64)
            .map(|i| {
                let s = spin[i as usize % 4];
                let n = i % 10;
                (i * 100, format!("\x1b[H\x1b[2Jtitle\r\n{s}\r\nstep {n}"))
            })
            .collect();
        let evs: Vec<(u64, &str)> = evs.iter().map(|(t, s)| (*t, s.as_str())).collect();
        let f = frames(&rec(&evs), 10).unwrap();
        assert_eq!(f.len(), 600, "a frame a window");
        // Title, 4 spinner rows, 10 counter rows, each with and without the cursor's
        // position mattering not at all (the cursor is not part of a row): 15 rows.
        assert_eq!(f.rows.len(), 15, "distinct rows, not rows × frames");
        assert_eq!(text(&f, 599, 2), "step 9");
        let mut n = f.clone();
        crate::recording::encode::normalise(&mut n, true);
        assert_eq!(n.rows.len(), 15, "padding keeps rows shared");
    }
}
