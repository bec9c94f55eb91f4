//! The fuzzing harness: one function per fuzz target, shared by the cargo-fuzz targets
//! (`fuzz/fuzz_targets/`, nightly) and their bounded stable-toolchain pass
//! (`tests/fuzz_props.rs`), so both feed the same inputs through the same code and check the
//! same properties. Not part of the library's interface.
//!
//! Each function takes the fuzzer's raw bytes, never fails on bad input (rejecting it is a
//! normal outcome), and panics when a property breaks: a panic is a finding.
//!
//! - [`terminal`]: bytes → [`Emulator`] at sizes 1–500, resized and split where the input says
//!   ([`TerminalCase`]) → [`Screen`] → SVG.
//! - [`parsers`]: key names, durations, `--size`, colours, text modes.
//! - [`documents`]: scenario documents (YAML and JSON), config files, theme and frame files,
//!   through their real loaders, then the appearance they resolve to, rendered.
//! - [`protocol`]: one host request line → [`Request`], as the host reads it.

use std::cell::RefCell;
use std::path::Path;

use crate::host::protocol::{
    format_duration_ms, parse_duration, ErrorCode, HostError, Request, MAX_REQUEST_BYTES,
};
use crate::options::{self, AppearanceOptions};
use crate::render::{self, fonts::Fonts, Appearance, OutputSize, TextMode};
use crate::scenario::document::Document;
use crate::term::keys::{self, Input, Step};
use crate::term::{Emulator, Modes, Rgb, Screen};

/// Largest terminal side the harness builds, cells (the CLI's and the host's limit).
pub const MAX_SIDE: u16 = 500;

/// Largest screen whose JSON round trip is checked, cells (larger ones take long and test the
/// same code).
const JSON_CHECK_MAX_CELLS: usize = 10_000;

/// Renders after this many SVGs start from fresh fonts, so the per-cluster caches of a long
/// fuzzing run stay bounded.
const FONTS_REUSE: u32 = 2_000;

// ---------------------------------------------------------------------------------------------
// Terminal: emulator + renderer
// ---------------------------------------------------------------------------------------------

/// One step of a [`TerminalCase`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalStep {
    /// Bytes for [`Emulator::advance`], 1–[`MAX_FEED`] of them (one split point after each).
    Feed(Vec<u8>),
    /// [`Emulator::resize`] to columns × rows, each 1–500.
    Resize(u16, u16),
    /// A viewport snapshot, checked (and the replies taken).
    Snapshot,
    /// [`Emulator::expire_sync`]: the synchronized-output deadline passes now.
    ExpireSync,
}

/// Most bytes of one [`TerminalStep::Feed`] (tag `0xfc`).
pub const MAX_FEED: usize = 0xfd;

const TAG_RESIZE: u8 = 0xff;
const TAG_SNAPSHOT: u8 = 0xfe;
const TAG_EXPIRE: u8 = 0xfd;

/// How the final screens are rendered ([`TerminalCase::render`]'s bits).
pub mod render_bits {
    /// Glyphs as outlines (`--text-mode outlines`) instead of text.
    pub const OUTLINES: u8 = 1;
    /// Embed font subsets (`--no-embed-font` when clear).
    pub const EMBED_FONTS: u8 = 2;
    /// Render the whole scrollback down to the content (as `capture` does), else the viewport.
    pub const SCROLLBACK: u8 = 4;
    /// A command header row.
    pub const HEADER: u8 = 8;
    /// Bold is bright.
    pub const BOLD_IS_BRIGHT: u8 = 16;
    /// Do not draw the cursor.
    pub const NO_CURSOR: u8 = 32;
    /// A window frame (`-d macos`) instead of none.
    pub const FRAME: u8 = 64;
}

/// An emulator run as the fuzzer describes it.
///
/// Byte form ([`TerminalCase::decode`], [`TerminalCase::encode`]): columns as a little-endian
/// `u16` then rows, each mapped to 1–500 (`1 + v % 500`); one byte of [`render_bits`]; then
/// steps, each a tag byte: `0xff` resize (four bytes of size follow, mapped likewise), `0xfe`
/// snapshot, `0xfd` expire the synchronized-output frame, anything else `n` a feed of the next
/// `n + 1` bytes (fewer at the end of the input; none is no step). Missing bytes read as 0.
/// Every input decodes to some case, and `decode(encode(decode(b))) == decode(b)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalCase {
    /// Columns at the start, 1–500.
    pub cols: u16,
    /// Rows at the start, 1–500.
    pub rows: u16,
    /// [`render_bits`].
    pub render: u8,
    /// What happens, in order.
    pub steps: Vec<TerminalStep>,
}

/// `v` mapped to a terminal side, 1–500.
fn side(v: u16) -> u16 {
    1 + v % MAX_SIDE
}

/// The value [`side`] maps to `n` (1–500).
fn side_bytes(n: u16) -> [u8; 2] {
    (n.clamp(1, MAX_SIDE) - 1).to_le_bytes()
}

impl TerminalCase {
    /// The case fuzz bytes describe (see the type's documentation).
    pub fn decode(data: &[u8]) -> TerminalCase {
        let byte = |i: usize| data.get(i).copied().unwrap_or(0);
        let size = |i: usize| side(u16::from_le_bytes([byte(i), byte(i + 1)]));
        let mut case = TerminalCase {
            cols: size(0),
            rows: size(2),
            render: byte(4),
            steps: Vec::new(),
        };
        let mut i = 5;
        while i < data.len() {
            let tag = data[i];
            i += 1;
            match tag {
                TAG_RESIZE => {
                    case.steps.push(TerminalStep::Resize(size(i), size(i + 2)));
                    i += 4;
                }
                TAG_SNAPSHOT => case.steps.push(TerminalStep::Snapshot),
                TAG_EXPIRE => case.steps.push(TerminalStep::ExpireSync),
                n => {
                    let end = (i + n as usize + 1).min(data.len());
                    if end > i {
                        case.steps.push(TerminalStep::Feed(data[i..end].to_vec()));
                    }
                    i = end;
                }
            }
        }
        case
    }

    /// The bytes that [`TerminalCase::decode`] reads back as this case (feeds longer than
    /// [`MAX_FEED`] are split; empty feeds are dropped; sides are clamped to 1–500).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&side_bytes(self.cols));
        out.extend_from_slice(&side_bytes(self.rows));
        out.push(self.render);
        for step in &self.steps {
            match step {
                TerminalStep::Feed(bytes) => {
                    for chunk in bytes.chunks(MAX_FEED) {
                        out.push((chunk.len() - 1) as u8);
                        out.extend_from_slice(chunk);
                    }
                }
                TerminalStep::Resize(c, r) => {
                    out.push(TAG_RESIZE);
                    out.extend_from_slice(&side_bytes(*c));
                    out.extend_from_slice(&side_bytes(*r));
                }
                TerminalStep::Snapshot => out.push(TAG_SNAPSHOT),
                TerminalStep::ExpireSync => out.push(TAG_EXPIRE),
            }
        }
        out
    }

    /// A case that feeds `bytes` at `cols` × `rows` in one piece, rendered with `render`.
    pub fn feed(cols: u16, rows: u16, render: u8, bytes: &[u8]) -> TerminalCase {
        TerminalCase {
            cols,
            rows,
            render,
            steps: vec![TerminalStep::Feed(bytes.to_vec())],
        }
    }

    /// The case with every width raised to at least `cols` columns.
    pub fn with_min_width(mut self, cols: u16) -> TerminalCase {
        self.cols = self.cols.max(cols);
        for s in &mut self.steps {
            if let TerminalStep::Resize(c, _) = s {
                *c = (*c).max(cols);
            }
        }
        self
    }
}

/// Which known findings the targets step around until they are fixed, so fuzzing finds new
/// ones instead of the same crash again (their reproducers are in `fuzz/regressions/`, run by
/// `tests/fuzz_props.rs` with [`Checks::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    /// The narrowest terminal a case runs at, columns: widths below it are raised to it.
    pub narrowest: u16,
    /// Check that every wide cell is followed by its continuation cell.
    pub wide_pairs: bool,
    /// Check that no pasted text can end a bracketed paste early, even one that makes a new
    /// end marker once an inner one is dropped (`ESC[20` `ESC[201~` `1~`).
    pub nested_paste_end: bool,
}

impl Checks {
    /// Everything: sizes 1–500 and every property.
    pub const ALL: Checks = Checks {
        narrowest: 1,
        wide_pairs: true,
        nested_paste_end: true,
    };

    /// What the targets run today: everything, as [`Checks::ALL`] (no known finding is
    /// stepped around; the last, a wide cell left without its continuation cell by
    /// insert/delete/erase of characters, `regressions/terminal/wide-cell-*`, is fixed).
    pub const TODAY: Checks = Checks::ALL;
}

/// The fuzz target `terminal`: decodes `data` ([`TerminalCase::decode`]) and runs it
/// ([`run_terminal`]) with [`Checks::TODAY`]. Returns the SVG documents rendered; callers
/// check that each is well-formed XML.
pub fn terminal(data: &[u8]) -> Vec<String> {
    run_terminal(&TerminalCase::decode(data), Checks::TODAY)
}

/// Runs a case: every step on one emulator, a checked snapshot at each `Snapshot` step and at
/// the end, then the final screen rendered to SVG as [`render_bits`] say. Returns the SVGs.
///
/// Panics when a property breaks (see [`check_screen`]).
pub fn run_terminal(case: &TerminalCase, checks: Checks) -> Vec<String> {
    let case = &case.clone().with_min_width(checks.narrowest);
    let clamp = |n: u16| n.clamp(1, MAX_SIDE) as usize;
    let mut size = (clamp(case.cols), clamp(case.rows));
    let mut emulator = Emulator::new(size.0, size.1);
    for step in &case.steps {
        match step {
            TerminalStep::Feed(bytes) => emulator.advance(bytes),
            TerminalStep::Resize(c, r) => {
                size = (clamp(*c), clamp(*r));
                emulator.resize(size.0, size.1);
            }
            TerminalStep::Snapshot => {
                check_screen(&emulator, &emulator.snapshot(), size, checks);
                let _ = emulator.take_replies();
            }
            TerminalStep::ExpireSync => emulator.expire_sync(),
        }
    }
    let viewport = emulator.snapshot();
    check_screen(&emulator, &viewport, size, checks);
    let full = emulator.snapshot_with_scrollback();
    check_screen(&emulator, &full, size, checks);
    let screen = if case.render & render_bits::SCROLLBACK != 0 {
        full.into_content()
    } else {
        viewport
    };
    vec![render_case(&screen, case.render)]
}

/// The properties every snapshot has: the emulator's size; `scrollback_rows` rows of history
/// then `height` viewport rows, each exactly `width` cells; the cursor on a cell; every wide
/// cell followed by its continuation cell in the same row (with `checks.wide_pairs`); viewport
/// rows read the same from the emulator and from the snapshot; the screen survives a JSON round
/// trip (the host's `snapshot` reply; screens up to 10 000 cells).
///
/// Panics with what broke.
pub fn check_screen(
    emulator: &Emulator,
    screen: &Screen,
    (cols, rows): (usize, usize),
    checks: Checks,
) {
    assert_eq!((emulator.cols(), emulator.rows()), (cols, rows), "size");
    assert_eq!((screen.width, screen.height), (cols, rows), "screen size");
    assert_eq!(
        screen.rows.len(),
        screen.scrollback_rows + screen.height,
        "rows = scrollback + viewport"
    );
    assert!(screen.cursor.row < screen.rows.len(), "cursor row");
    assert!(screen.cursor.col < screen.width, "cursor column");
    for (r, row) in screen.rows.iter().enumerate() {
        assert_eq!(row.len(), screen.width, "row {r} has {} cells", row.len());
        for (c, cell) in row.iter().enumerate() {
            if checks.wide_pairs && cell.width == 2 {
                assert!(
                    row.get(c + 1).is_some_and(|next| next.width == 0),
                    "row {r}: the wide cell at column {c} has no continuation cell"
                );
            }
        }
    }
    for r in 0..screen.height {
        assert_eq!(
            emulator.row_text(r),
            screen.row_text(screen.scrollback_rows + r),
            "viewport row {r} text"
        );
    }
    if screen.rows.len() * screen.width <= JSON_CHECK_MAX_CELLS {
        let json = serde_json::to_string(screen).expect("a screen serialises");
        let back: Screen = serde_json::from_str(&json).expect("a screen reads back");
        assert!(back == *screen, "the screen changed through JSON");
    }
}

thread_local! {
    /// Bundled fonts only (reproducible, no system scan) and how many renders used them.
    static FONTS: RefCell<(Fonts, u32)> = RefCell::new((Fonts::bundled_only(), 0));
}

/// Renders `screen` to SVG with the bundled fonts and the appearance `bits` describe.
fn render_case(screen: &Screen, bits: u8) -> String {
    let on = |b: u8| bits & b != 0;
    let appearance = Appearance {
        text_mode: if on(render_bits::OUTLINES) {
            TextMode::Outlines
        } else {
            TextMode::Text
        },
        embed_fonts: on(render_bits::EMBED_FONTS),
        header: on(render_bits::HEADER).then(|| "$ printf '中😀\\x1b[31m'".to_string()),
        bold_is_bright: on(render_bits::BOLD_IS_BRIGHT),
        cursor: !on(render_bits::NO_CURSOR),
        frame: if on(render_bits::FRAME) {
            render::chrome::load("macos").expect("built-in frame")
        } else {
            Appearance::default().frame
        },
        ..Appearance::default()
    };
    render_with(screen, &appearance)
}

/// [`render::render_svg`] with the harness's fonts; checks the document's outer shape.
fn render_with(screen: &Screen, appearance: &Appearance) -> String {
    let svg = FONTS.with(|f| {
        let mut f = f.borrow_mut();
        if f.1 >= FONTS_REUSE {
            *f = (Fonts::bundled_only(), 0);
        }
        f.1 += 1;
        render::render_svg(screen, appearance, &f.0)
    });
    assert!(svg.starts_with("<svg"), "an SVG document: {:.80}", svg);
    assert!(
        svg.trim_end().ends_with("</svg>"),
        "a complete SVG document"
    );
    svg
}

// ---------------------------------------------------------------------------------------------
// Parsers
// ---------------------------------------------------------------------------------------------

/// The fuzz target `parsers`: the input as text (lossy UTF-8), whole and line by line, through
/// every value parser: key names ([`keys::parse_key`], [`keys::validate`] and
/// [`keys::encode_step`] under several modes), durations ([`parse_duration`]), `--size`
/// ([`options::parse_size`]), colours ([`Rgb::parse_hex`], [`render::is_css_color`]) and text
/// modes.
///
/// Properties: a parsed key prints as a name that parses back to it and has bytes in every
/// mode; raw hex gives half as many bytes as digits; a bracketed paste ends exactly once, at
/// its end; a duration is finite and within 1e9 s, and whole milliseconds survive
/// [`format_duration_ms`]; a size is within 1–100 000 px; a colour survives `to_hex`.
pub fn parsers(data: &[u8]) {
    parsers_with(data, Checks::TODAY)
}

/// [`parsers`] with the given checks.
pub fn parsers_with(data: &[u8], checks: Checks) {
    let text = String::from_utf8_lossy(data);
    let mut values = vec![text.as_ref()];
    if text.contains('\n') {
        values.extend(text.split('\n'));
    }
    for value in values {
        key_name(value);
        inputs(value, checks);
        duration(value);
        size(value);
        colour(value);
        let _ = value.parse::<TextMode>();
    }
}

/// The modes a key or paste is encoded under: none, application cursor and keypad, bracketed
/// paste, and the kitty keyboard flags that change what keys send.
fn all_modes() -> [Modes; 5] {
    let m = Modes::default();
    [
        m,
        Modes {
            application_cursor: true,
            application_keypad: true,
            ..m
        },
        Modes {
            bracketed_paste: true,
            ..m
        },
        Modes {
            kitty_keyboard_flags: 1,
            ..m
        },
        Modes {
            kitty_keyboard_flags: 31,
            ..m
        },
    ]
}

fn key_name(value: &str) {
    let Ok(key) = keys::parse_key(value) else {
        return;
    };
    let printed = key.to_string();
    assert_eq!(
        keys::parse_key(&printed).as_ref(),
        Ok(&key),
        "key {value:?} prints as {printed:?}, which does not parse back to it"
    );
    for modes in all_modes() {
        match keys::encode_key(&key, &modes) {
            Ok(bytes) => assert!(
                !bytes.is_empty(),
                "key {value:?} has no bytes under {modes:?}"
            ),
            // Only a key the kitty keyboard protocol alone can express lacks legacy bytes.
            Err(e) => assert!(
                modes.kitty_keyboard_flags == 0,
                "key {value:?} is refused under {modes:?}: {e}"
            ),
        }
    }
}

fn inputs(value: &str, checks: Checks) {
    let list = [
        Input::Text(value.into()),
        Input::Keys(value.into()),
        Input::Paste(value.into()),
        Input::RawHex(value.into()),
    ];
    for input in list {
        let Ok(steps) = keys::validate(std::slice::from_ref(&input)) else {
            continue;
        };
        for step in &steps {
            if let (Step::Raw(bytes), Input::RawHex(h)) = (step, &input) {
                assert_eq!(bytes.len() * 2, h.len(), "raw hex {h:?}");
            }
            for modes in all_modes() {
                let Ok(bytes) = keys::encode_step(step, &modes) else {
                    continue;
                };
                let nested = value.replace("\x1b[201~", "").contains("\x1b[201~");
                if let (Step::Paste(_), true) = (step, modes.bracketed_paste) {
                    if checks.nested_paste_end || !nested {
                        paste_is_closed_once(value, &bytes);
                    }
                }
            }
        }
    }
}

/// A bracketed paste starts with `ESC[200~`, ends with `ESC[201~`, and holds no other
/// `ESC[201~`: the pasted text cannot end the paste early and be typed as keys.
fn paste_is_closed_once(value: &str, bytes: &[u8]) {
    const END: &[u8] = b"\x1b[201~";
    assert!(bytes.starts_with(b"\x1b[200~"), "paste of {value:?}: start");
    assert!(bytes.ends_with(END), "paste of {value:?}: end");
    let ends = bytes.windows(END.len()).filter(|w| *w == END).count();
    assert_eq!(
        ends, 1,
        "paste of {value:?}: the pasted text closes the paste early"
    );
}

fn duration(value: &str) {
    if let Ok(d) = parse_duration(value) {
        assert!(d.as_secs_f64() <= 1e9, "duration {value:?} = {d:?}");
        let ms = d.as_millis();
        if let Ok(ms) = u64::try_from(ms) {
            let text = format_duration_ms(ms);
            assert_eq!(
                parse_duration(&text).map(|d| d.as_millis()),
                Ok(ms as u128),
                "{ms} ms formats as {text:?}"
            );
        }
    }
}

fn size(value: &str) {
    let ok = |v: f32| v.is_finite() && (1.0..=100_000.0).contains(&v);
    match options::parse_size(value) {
        Ok(OutputSize::Width(w)) | Ok(OutputSize::Height(w)) => {
            assert!(ok(w), "size {value:?} → {w}")
        }
        Ok(OutputSize::Box(w, h)) => assert!(ok(w) && ok(h), "size {value:?} → {w}x{h}"),
        Err(_) => {}
    }
}

fn colour(value: &str) {
    if let Some(c) = Rgb::parse_hex(value) {
        assert_eq!(
            Rgb::parse_hex(&c.to_hex()),
            Some(c),
            "colour {value:?} → {}",
            c.to_hex()
        );
        assert!(render::is_css_color(&c.to_hex()), "{} is CSS", c.to_hex());
    }
    let _ = render::is_css_color(value);
}

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

thread_local! {
    /// Where [`documents`] writes its inputs, so the real loaders read them from files;
    /// deleted when the thread ends.
    static SCRATCH: tempfile::TempDir = tempfile::Builder::new()
        .prefix("console2svg-fuzz")
        .tempdir()
        .expect("a scratch directory");
}

/// The fuzz target `documents`: the input written to files and read by the real loaders, as a
/// scenario document in YAML and in JSON ([`Document::load`]), a config file
/// ([`options::parse_config`]), a theme file in each format and a window frame file (through
/// [`AppearanceOptions::resolve`]).
///
/// Properties: a loaded scenario prints ([`Document::to_text`], YAML and JSON) as a document
/// that loads back equal; an appearance that resolves renders a small screen to a complete
/// SVG. Option values that name files (`/` or `\` in a theme, window or background) are left
/// out of the resolve, so the fuzzer cannot make it read the machine's files.
pub fn documents(data: &[u8]) {
    SCRATCH.with(|scratch| {
        let dir = scratch.path();
        let file = |name: &str| {
            let p = dir.join(name);
            std::fs::write(&p, data).expect("write a scratch file");
            p
        };
        for name in ["scenario.yaml", "scenario.json"] {
            if let Ok(doc) = Document::load(&file(name)) {
                scenario_round_trip(dir, &doc);
                for o in [doc.options.as_ref(), doc.scenario.launch.options.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    appearance(without_files(o.appearance()));
                }
            }
        }
        if let Ok(o) = options::parse_config(&file("config.yaml")) {
            appearance(without_files(o.appearance()));
        }
        // Every theme format: by extension, and sniffed from the content (no extension).
        for name in [
            "theme.json",
            "theme.itermcolors",
            "theme.toml",
            "theme.conf",
            "theme",
        ] {
            let theme = file(name).to_string_lossy().into_owned();
            appearance(AppearanceOptions {
                theme: Some(vec![theme]),
                ..AppearanceOptions::default()
            });
        }
        let frame = file("frame.json").to_string_lossy().into_owned();
        appearance(AppearanceOptions {
            window: Some(frame),
            ..AppearanceOptions::default()
        });
    });
}

fn scenario_round_trip(dir: &Path, doc: &Document) {
    for (json, name) in [(false, "again.yaml"), (true, "again.json")] {
        let text = doc.to_text(json);
        let p = dir.join(name);
        std::fs::write(&p, &text).expect("write a scratch file");
        match Document::load(&p) {
            Ok(again) => assert!(
                again == *doc,
                "the scenario changed through {name}:\n{text}\nfirst: {doc:?}\nagain: {again:?}"
            ),
            Err(e) => panic!("a loaded scenario printed as {name} does not load: {e}\n{text}"),
        }
    }
}

/// `o` without the theme, window and background values that could name a file (a `/` or `\`,
/// a `.json` name, or anything that exists), so fuzzed documents never make the loaders read
/// the machine's files.
fn without_files(mut o: AppearanceOptions) -> AppearanceOptions {
    let names_file = |v: &String| {
        v.contains('/') || v.contains('\\') || v.ends_with(".json") || Path::new(v).exists()
    };
    if o.theme.as_ref().is_some_and(|t| t.iter().any(names_file)) {
        o.theme = None;
    }
    if o.window.as_ref().is_some_and(names_file) {
        o.window = None;
    }
    if o.background
        .as_ref()
        .is_some_and(|b| b.iter().any(names_file))
    {
        o.background = None;
    }
    o
}

/// Resolves appearance options and renders a small screen with them.
fn appearance(o: AppearanceOptions) {
    // The header text is the one free-form string that reaches the picture.
    let command = ["printf".to_string(), "a b'中".to_string()];
    if let Ok(appearance) = o.resolve(Some(&command)) {
        let mut emulator = Emulator::new(12, 3);
        emulator.advance(
            "ab 中😀\x1b[1;31mX\x1b[0m\r\n\x1b]8;;https://e.x\x07ln\x1b]8;;\x07".as_bytes(),
        );
        render_with(&emulator.snapshot(), &appearance);
    }
}

// ---------------------------------------------------------------------------------------------
// Protocol
// ---------------------------------------------------------------------------------------------

/// The fuzz target `protocol`: one request line as the host reads it (up to the first newline,
/// at most [`MAX_REQUEST_BYTES`]) parsed as a [`Request`].
///
/// Properties: a line that does not parse gets an `invalid_request` envelope that is one line
/// of JSON; a request survives a JSON round trip on one line; a `send`'s inputs validate or
/// fail as a whole, and validated steps encode under every mode.
pub fn protocol(data: &[u8]) {
    let line = match data.iter().position(|&b| b == b'\n') {
        Some(end) => &data[..end],
        None => data,
    };
    if line.len() > MAX_REQUEST_BYTES {
        return;
    }
    let request = match serde_json::from_slice::<Request>(line) {
        Ok(r) => r,
        Err(e) => {
            let reply =
                HostError::new(ErrorCode::InvalidRequest, format!("malformed request: {e}"))
                    .envelope()
                    .to_string();
            assert!(!reply.contains('\n'), "an error reply is one line: {reply}");
            let v: serde_json::Value = serde_json::from_str(&reply).expect("the reply is JSON");
            assert_eq!(v["error"]["code"], "invalid_request");
            return;
        }
    };
    let text = serde_json::to_string(&request).expect("a request serialises");
    assert!(!text.contains('\n'), "a request is one line: {text}");
    match serde_json::from_str::<Request>(&text) {
        Ok(again) => assert!(
            again == request,
            "the request changed through JSON: {text}\nfirst: {request:?}\nagain: {again:?}"
        ),
        Err(e) => panic!("a request printed as {text} does not parse: {e}"),
    }
    if let Request::Send { inputs, .. } = &request {
        if let Ok(steps) = keys::validate(inputs) {
            assert_eq!(steps.len(), inputs.len(), "one step per input");
            for step in &steps {
                for modes in all_modes() {
                    let _ = keys::encode_step(step, &modes);
                }
            }
        }
    }
}
