//! The fuzz targets' bounded pass on the stable toolchain (issue 19.11): the inputs of `fuzz/`
//! (its seed corpora, the crash reproducers in `fuzz/regressions/`, and random and mutated
//! inputs of the same kinds) through the same harness the targets call
//! (`console2svg::fuzzing`), so a regression fails here without nightly or a fuzzing run.
//!
//! Case counts and sizes are bounded so the file runs in well under a minute on two cores; a
//! case that runs away (an endless loop) fails the run with its input instead of stalling it.
//! A failing random input is printed: add it to `fuzz/regressions/<target>/`.
//!
//! The terminal's seed and reproducer files are generated from the tables below
//! (`TERMINAL_SEEDS`, `TERMINAL_REGRESSIONS`): `UPDATE_FUZZ_CORPUS=1 cargo test --test
//! fuzz_props seed_files` rewrites them.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use console2svg::fuzzing::{self, render_bits as rb, Checks, TerminalCase, TerminalStep};
use console2svg::host::protocol::Request;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;

// ---------------------------------------------------------------------------------------------
// Inputs on disk
// ---------------------------------------------------------------------------------------------

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted by name: (name, bytes).
fn files(kind: &str, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("a corpus file"))
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "{} is empty", dir.display());
    out
}

/// One file of `fuzz/<kind>/<target>/`.
fn file(kind: &str, target: &str, name: &str) -> Vec<u8> {
    let p = fuzz_dir().join(kind).join(target).join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

// ---------------------------------------------------------------------------------------------
// Running one input, bounded in time
// ---------------------------------------------------------------------------------------------

/// Longest one input may run (debug build, shared machine) before it counts as a hang.
const HANG_LIMIT: Duration = Duration::from_secs(30);

/// Most memory the test process may hold while an input runs (a runaway loop that allocates
/// hundreds of MB a second must end long before it troubles the machine).
const MEMORY_LIMIT_KB: u64 = 2 * 1024 * 1024;

/// The test process's resident memory, kB.
fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `f` on `input`; if it has not returned within [`HANG_LIMIT`], or the process grows past
/// [`MEMORY_LIMIT_KB`] meanwhile, prints the input and ends the whole test process (exit 101):
/// a runaway is a finding, and it must not stall CI or eat the machine's memory while the other
/// tests go on.
fn bounded<T>(target: &str, input: &[u8], f: impl FnOnce(&[u8]) -> T) -> T {
    let (done, watch) = mpsc::channel::<()>();
    let input_text = escape(input);
    let target = target.to_string();
    std::thread::spawn(move || {
        let start = std::time::Instant::now();
        loop {
            match watch.recv_timeout(Duration::from_millis(100)) {
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            let rss = rss_kb();
            if start.elapsed() >= HANG_LIMIT || rss > MEMORY_LIMIT_KB {
                // Straight to the process's stderr: the test harness captures `eprintln!`,
                // and what it captured is lost at `exit`.
                let _ = writeln!(
                    std::io::stderr(),
                    "fuzz target {target}: a runaway ({:.1} s, {} MB resident); input as a Rust \
                     byte string:\n{input_text}",
                    start.elapsed().as_secs_f32(),
                    rss / 1024
                );
                std::process::exit(101);
            }
        }
    });
    let out = f(input);
    drop(done);
    out
}

fn escape(input: &[u8]) -> String {
    format!("b\"{}\"", input.escape_ascii())
}

/// The fuzz target `terminal` as `fuzz/fuzz_targets/terminal.rs` runs it.
fn terminal(data: &[u8]) {
    bounded("terminal", data, |d| check_svgs(fuzzing::terminal(d)));
}

/// The target `terminal` with every check on, known findings included.
fn terminal_all(data: &[u8]) {
    bounded("terminal", data, |d| {
        check_svgs(fuzzing::run_terminal(&TerminalCase::decode(d), Checks::ALL))
    });
}

/// A case given as a value, through its bytes (as the fuzzer gives it).
fn terminal_case(case: &TerminalCase, checks: Checks) {
    if checks == Checks::ALL {
        terminal_all(&case.encode())
    } else {
        assert_eq!(checks, Checks::TODAY);
        terminal(&case.encode())
    }
}

fn check_svgs(svgs: Vec<String>) {
    for svg in svgs {
        if let Err(e) = roxmltree::Document::parse(&svg) {
            panic!("the SVG is not well-formed XML: {e}");
        }
    }
}

fn parsers(data: &[u8]) {
    bounded("parsers", data, fuzzing::parsers);
}

fn parsers_all(data: &[u8]) {
    bounded("parsers", data, |d| fuzzing::parsers_with(d, Checks::ALL));
}

fn documents(data: &[u8]) {
    bounded("documents", data, fuzzing::documents);
}

fn protocol(data: &[u8]) {
    bounded("protocol", data, fuzzing::protocol);
}

// ---------------------------------------------------------------------------------------------
// The terminal's seeds and reproducers
// ---------------------------------------------------------------------------------------------

fn feed(bytes: &str) -> TerminalStep {
    TerminalStep::Feed(bytes.as_bytes().to_vec())
}

/// The seed corpus of the `terminal` target (`fuzz/corpus/terminal/<name>`).
fn terminal_seeds() -> Vec<(&'static str, TerminalCase)> {
    use TerminalStep::{ExpireSync, Resize, Snapshot};
    let case = |cols, rows, render, steps| TerminalCase {
        cols,
        rows,
        render,
        steps,
    };
    let numbered: String = (1..=40).map(|i| format!("line {i}\r\n")).collect();
    vec![
        (
            "plain-text",
            case(80, 24, 0, vec![feed("hello, world\r\n$ ls -la\r\n$ ")]),
        ),
        (
            "styles",
            case(
                40,
                10,
                rb::OUTLINES | rb::EMBED_FONTS,
                vec![feed(
                    "\x1b[1mbold\x1b[0m \x1b[2mdim\x1b[22m \x1b[3mit\x1b[23m \x1b[4mul\x1b[24m \
                     \x1b[4:3mcurly\x1b[4:0m \x1b[9mstrike\x1b[29m \x1b[7minv\x1b[27m \
                     \x1b[8mhidden\x1b[28m\r\n\x1b[31;42mred on green\x1b[0m \
                     \x1b[38;5;208m208\x1b[0m \x1b[38;2;1;2;3;48;2;250;250;250mrgb\x1b[0m \
                     \x1b[58;5;4m\x1b[4munder colour\x1b[59;24m \x1b[91mbright\x1b[0m",
                )],
            ),
        ),
        (
            "wide-and-combining",
            case(
                20,
                5,
                rb::EMBED_FONTS,
                vec![feed(
                    "中文 😀 e\u{301} 👩\u{200d}💻 ｱ\r\n\u{1F1EF}\u{1F1F5} 한국어 ⌘ \u{fe0f}",
                )],
            ),
        ),
        (
            "wide-at-the-right-edge",
            case(5, 3, 0, vec![feed("abcd中ef\r\n1234😀")]),
        ),
        (
            "one-column-narrow-text",
            case(1, 3, rb::SCROLLBACK, vec![feed("abc\r\ndef")]),
        ),
        (
            "alternate-screen-tui",
            case(
                30,
                8,
                rb::FRAME | rb::HEADER,
                vec![
                    feed("before\r\n\x1b[?1049h\x1b[H\x1b[2J┌────┐\r\n│ hi │\r\n└────┘"),
                    feed("\x1b[5;3H█▀░▒▓ \u{e0b0}\u{e0b2}\x1b[?25l"),
                    Snapshot,
                    feed("\x1b[?1049l after"),
                ],
            ),
        ),
        (
            "scroll-region-and-scrollback",
            case(
                30,
                5,
                rb::SCROLLBACK,
                vec![
                    feed(&numbered),
                    feed("\x1b[2;4r\x1b[4H\nin region\n\n\x1b[r\x1b[3S\x1b[2T\x1b[L\x1b[M"),
                ],
            ),
        ),
        (
            "edits",
            case(
                20,
                4,
                0,
                vec![feed(
                    "abcdefghij\x1b[1;3H\x1b[2@\x1b[3P\x1b[4h+\x1b[4l\x1b[5X\x1b[K\r\n\tx\tTab\x08\x08\x1b[1K\x1b#8",
                )],
            ),
        ),
        (
            "synchronized-output",
            case(
                20,
                3,
                0,
                vec![
                    feed("shown\x1b[?2026h\x1b[2Jhidden until the frame ends"),
                    Snapshot,
                    ExpireSync,
                    feed("\x1b[?2026hagain\x1b[?2026l"),
                ],
            ),
        ),
        (
            "queries",
            case(
                20,
                3,
                0,
                vec![
                    feed("\x1b[c\x1b[>c\x1b[6n\x1b[5n\x1b]11;?\x07\x1b]4;1;?\x1b\\\x1b[14t\x1b[18t"),
                    feed("\x1b[>q\x1b]7501;?\x07\x1b]7501;working;msg\x07\x1b]9;4;1;50\x07\x1b[?2026$p\x1b[?u"),
                    Snapshot,
                ],
            ),
        ),
        (
            "links-title-modes",
            case(
                30,
                4,
                rb::FRAME | rb::HEADER | rb::BOLD_IS_BRIGHT | rb::NO_CURSOR,
                vec![feed(
                    "\x1b]0;a title\x07\x1b]8;id=1;https://example.com/\x1b\\link\x1b]8;;\x1b\\ \
                     \x1b]8;;file:///tmp\x07two\x1b]8;;\x07\x1b]4;1;rgb:ff/00/00\x07\x1b[31mred\
                     \x1b[?1h\x1b=\x1b[?2004h\x1b[?1000h\x1b[>1u\x1b[5 q\x07",
                )],
            ),
        ),
        (
            "split-sequences",
            case(
                20,
                3,
                0,
                vec![
                    feed("\x1b[3"),
                    feed("1mred\x1b"),
                    feed("[0m "),
                    TerminalStep::Feed(vec![0xe4, 0xb8]),
                    TerminalStep::Feed(vec![0xad, b'!', 0xff, 0xfe, 0xc3]),
                    feed("\x1b]0;ti"),
                    feed("tle\x07end"),
                ],
            ),
        ),
        (
            "resizes",
            case(
                80,
                24,
                rb::SCROLLBACK,
                vec![
                    feed(&numbered),
                    feed("a long line that will wrap when the terminal gets narrower than it is"),
                    Resize(20, 10),
                    Snapshot,
                    Resize(120, 30),
                    Snapshot,
                    Resize(2, 2),
                    Snapshot,
                    Resize(500, 1),
                    feed("\r\nafter"),
                ],
            ),
        ),
        (
            "largest",
            case(500, 500, 0, vec![feed("\x1b[500;500Hx\x1b[1;1Hcorner 中")]),
        ),
        (
            "random-bytes",
            case(
                13,
                4,
                rb::OUTLINES,
                vec![TerminalStep::Feed(
                    (0u32..600).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect(),
                )],
            ),
        ),
    ]
}

/// The known crash reproducers of the `terminal` target (`fuzz/regressions/terminal/<name>`),
/// issue 19 item 1.
fn terminal_regressions() -> Vec<(&'static str, TerminalCase)> {
    vec![
        // `printf '中\n' | console2svg -w 1 --stdout` panics (exit 101).
        (
            "wide-cjk-in-1-column",
            TerminalCase::feed(1, 24, 0, "中\r\n".as_bytes()),
        ),
        (
            "emoji-in-1-column",
            TerminalCase::feed(1, 24, 0, "😀\r\n".as_bytes()),
        ),
        // `session resize <id> --width 1` with a wide character on screen loops for ever in
        // alacritty's grid reflow.
        (
            "resize-to-1-column-with-wide-characters",
            TerminalCase {
                cols: 80,
                rows: 24,
                render: 0,
                steps: vec![
                    feed("中文 😀 wide\r\n"),
                    TerminalStep::Resize(1, 24),
                    TerminalStep::Snapshot,
                ],
            },
        ),
        // Found here: editing next to a wide character leaves the wide cell without its
        // continuation cell (a `width: 2` cell followed by a `width: 1` one), so the row
        // covers more columns than the terminal has.
        (
            "wide-cell-after-insert-at-the-right-edge",
            TerminalCase::feed(4, 1, 0, "ab中\x1b[1@".as_bytes()),
        ),
        (
            "wide-cell-after-delete-of-its-continuation",
            TerminalCase::feed(4, 1, 0, "中\x1b[2G\x1b[P".as_bytes()),
        ),
        (
            "wide-cell-after-erase-of-its-continuation",
            TerminalCase::feed(4, 1, 0, "中\x1b[2G\x1b[X".as_bytes()),
        ),
        // Found here: in insert mode (IRM) typing shifts the row right, and a wide character
        // pushed against the right edge lost its continuation cell off the edge.
        (
            "wide-cell-after-insert-mode-pushes-it-off-the-edge",
            TerminalCase::feed(
                21,
                1,
                0,
                "   \u{a0}    中\x1b[4h\x1b[?6h\x1b[5;10Haa".as_bytes(),
            ),
        ),
        // And after a wrap: the character inserted at the start of the next row pushed a wide
        // character there against the right edge.
        (
            "wide-cell-after-insert-mode-wraps-onto-it",
            TerminalCase {
                cols: 3,
                rows: 490,
                render: 0,
                steps: vec![
                    feed("\x1b[4h中  \x7f\x1b[2T中中"),
                    TerminalStep::Resize(2, 1),
                    TerminalStep::Snapshot,
                ],
            },
        ),
    ]
}

/// The generated files are what the tables say (`UPDATE_FUZZ_CORPUS=1` writes them).
#[test]
fn seed_files_match_their_tables() {
    let update = std::env::var_os("UPDATE_FUZZ_CORPUS").is_some();
    let mut stale = Vec::new();
    for (kind, table) in [
        ("corpus", terminal_seeds()),
        ("regressions", terminal_regressions()),
    ] {
        let dir = fuzz_dir().join(kind).join("terminal");
        for (name, case) in table {
            let p = dir.join(name);
            let bytes = case.encode();
            assert_eq!(
                TerminalCase::decode(&bytes).encode(),
                bytes,
                "{name} decodes to itself"
            );
            if std::fs::read(&p).ok().as_deref() != Some(bytes.as_slice()) {
                if update {
                    std::fs::create_dir_all(&dir).unwrap();
                    std::fs::write(&p, &bytes).unwrap();
                } else {
                    stale.push(p.display().to_string());
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale (rewrite with UPDATE_FUZZ_CORPUS=1): {stale:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The corpora and the reproducers
// ---------------------------------------------------------------------------------------------

#[test]
fn corpus_terminal() {
    for (name, bytes) in files("corpus", "terminal") {
        eprintln!("terminal: {name}");
        terminal(&bytes);
    }
}

#[test]
fn corpus_parsers() {
    for (_, bytes) in files("corpus", "parsers") {
        parsers(&bytes);
    }
}

#[test]
fn corpus_documents() {
    for (_, bytes) in files("corpus", "documents") {
        documents(&bytes);
    }
}

#[test]
fn corpus_protocol() {
    for (_, bytes) in files("corpus", "protocol") {
        protocol(&bytes);
    }
}

#[test]
fn regression_wide_cjk_in_1_column() {
    terminal_all(&file("regressions", "terminal", "wide-cjk-in-1-column"));
}

#[test]
fn regression_emoji_in_1_column() {
    terminal_all(&file("regressions", "terminal", "emoji-in-1-column"));
}

#[test]
fn regression_resize_to_1_column_with_wide_characters() {
    terminal_all(&file(
        "regressions",
        "terminal",
        "resize-to-1-column-with-wide-characters",
    ));
}

#[test]
fn regression_wide_cells_keep_their_continuation_cell() {
    let failed: Vec<String> = files("regressions", "terminal")
        .into_iter()
        .filter(|(name, _)| name.starts_with("wide-cell-"))
        .filter(|(_, bytes)| std::panic::catch_unwind(|| terminal_all(bytes)).is_err())
        .map(|(name, _)| name)
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

#[test]
fn regression_paste_end_marker_nested() {
    parsers_all(&file("regressions", "parsers", "paste-end-marker-nested"));
}

// ---------------------------------------------------------------------------------------------
// Random inputs
// ---------------------------------------------------------------------------------------------

/// The random cases' config: fixed cases under `CI=true` ([`common::proptest_seed`]); elsewhere
/// every run draws new cases (that is how fuzz/regressions/ grows).
fn config(cases: u32) -> Config {
    let defaults = Config::default();
    let rng_seed = common::proptest_seed(defaults.rng_seed);
    Config {
        cases,
        // A failure is printed with its input; it belongs in fuzz/regressions/, not in a file
        // beside the tests.
        failure_persistence: None,
        max_shrink_time: 30_000,
        rng_seed,
        ..defaults
    }
}

/// Pieces the terminal inputs are made of: text of every width, C0 controls, and the escape
/// sequences that move, edit, scroll, switch screens, query and style.
const FRAGMENTS: &[&str] = &[
    "a",
    "hello ",
    "中",
    "文字",
    "😀",
    "👩\u{200d}💻",
    "e\u{301}",
    "\u{200d}",
    "\u{fe0f}",
    "ｱ",
    "─│┼█▀░",
    "\u{e0b0}",
    "\t",
    "\r\n",
    "\n",
    "\r",
    "\x08",
    "\x07",
    "\x1b[31m",
    "\x1b[1;4;38;2;1;2;3;48;5;200m",
    "\x1b[4:3m\x1b[58;5;2m",
    "\x1b[7m",
    "\x1b[0m",
    "\x1b[H",
    "\x1b[2J",
    "\x1b[3J",
    "\x1b[K",
    "\x1b[1K",
    "\x1b[5;10H",
    "\x1b[9C",
    "\x1b[9B",
    "\x1b[3D",
    "\x1b[2A",
    "\x1b[?1049h",
    "\x1b[?1049l",
    "\x1b[?2026h",
    "\x1b[?2026l",
    "\x1b[?25l",
    "\x1b[?7l",
    "\x1b[?7h",
    "\x1b[?6h",
    "\x1b[2;4r",
    "\x1b[r",
    "\x1b[4h",
    "\x1b[4l",
    "\x1b[2@",
    "\x1b[2P",
    "\x1b[2L",
    "\x1b[2M",
    "\x1b[3S",
    "\x1b[2T",
    "\x1b[5X",
    "\x1b#8",
    "\x1bc",
    "\x1bD",
    "\x1bM",
    "\x1bE",
    "\x1b7",
    "\x1b8",
    "\x1b[6n",
    "\x1b[c",
    "\x1b[>q",
    "\x1b]11;?\x07",
    "\x1b]4;1;?\x1b\\",
    "\x1b]4;3;rgb:12/34/56\x07",
    "\x1b]0;title\x07",
    "\x1b]8;;https://x.y/\x1b\\",
    "\x1b]8;;\x1b\\",
    "\x1b]7501;?\x07",
    "\x1b]9;4;1;50\x07",
    "\x1b[>1u",
    "\x1b[<u",
    "\x1b[?1h\x1b=",
    "\x1b[?2004h",
    "\x1b[?69h",
    "\x1b[?69l",
    "\x1b[3;7s",
    "\x1b[2;5s",
    "\x1b[!p",
    "\x1b[1\"q",
    "\x1b[0\"q",
    "\x1b[?2J",
    "\x1b[?1K",
    "\x1bV",
    "\x1bW",
    "\x1b[88;2;2;4;6$x",
    "\x1b[1;1;3;3$z",
    "\x1b[2;2;3;9${",
    "\x1b[1;1;2;5;1;3;2;1$v",
    "\x1b[2'}",
    "\x1b[2'~",
    "\x1b6",
    "\x1b9",
    "\x1b[?45h",
    "\x1b[?1048h",
    "\x1b[?1048l",
    "\x1b[?6n",
    "\x1b[22;0t\x1b[23;1t\x1b[20t",
    "\x1b[20h",
    "\x1b[3I",
    "\x1b[",
    "\x1b]",
    "\x1bP",
];

/// Terminal sizes: mostly everyday, and the extremes (a few columns or rows, up to 500),
/// never both sides large (500 × 500 is a corpus seed; here it would cost seconds a case).
fn sizes(narrowest: u16) -> impl Strategy<Value = (u16, u16)> {
    prop_oneof![
        6 => (narrowest..=132u16, 1..=50u16),
        1 => (490..=500u16, 1..=4u16),
        1 => (narrowest..=4u16, 490..=500u16),
    ]
}

fn fragment_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(FRAGMENTS).prop_map(|f| f.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..8),
    ]
}

fn terminal_cases(narrowest: u16) -> impl Strategy<Value = TerminalCase> {
    let feed = prop::collection::vec(fragment_bytes(), 1..24)
        .prop_map(|parts| TerminalStep::Feed(parts.concat()));
    let step = prop_oneof![
        8 => feed,
        1 => sizes(narrowest).prop_map(|(c, r)| TerminalStep::Resize(c, r)),
        1 => Just(TerminalStep::Snapshot),
        1 => Just(TerminalStep::ExpireSync),
    ];
    (
        sizes(narrowest),
        any::<u8>(),
        prop::collection::vec(step, 1..12),
    )
        .prop_map(|((cols, rows), render, steps)| TerminalCase {
            cols,
            rows,
            render,
            steps,
        })
}

/// Random bytes as the fuzzer starts from: the header makes a size of 1–500, the rest steps;
/// decoding is canonical.
fn random_terminal_bytes(bytes: &[u8], checks: Checks) {
    let case = TerminalCase::decode(bytes);
    assert_eq!(
        TerminalCase::decode(&case.encode()),
        case,
        "canonical decode"
    );
    // Both sides large costs seconds a case in a debug build; the fuzzer covers it.
    let case = if case.cols > 132 && case.rows > 50 {
        TerminalCase { rows: 50, ..case }
    } else {
        case
    };
    terminal_case(&case, checks);
}

// The terminal targets run with `Checks::TODAY` (the fuzz target's own), which steps around
// known findings while there are any (none today); the `*_all_checks` twins always run
// everything.

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn terminal_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        random_terminal_bytes(&bytes, Checks::TODAY);
    }

    #[test]
    fn terminal_structured(case in terminal_cases(Checks::TODAY.narrowest)) {
        terminal_case(&case, Checks::TODAY);
    }
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn terminal_random_bytes_all_checks(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        random_terminal_bytes(&bytes, Checks::ALL);
    }

    #[test]
    fn terminal_structured_all_checks(case in terminal_cases(1)) {
        terminal_case(&case, Checks::ALL);
    }
}

/// Runs `case` on two emulators, one of them hibernating after every step (a host's idle
/// session), and compares all a reader or the program could see: while asleep, against the
/// other's screen; at the end, screens, scrollback, cursor, modes and replies.
fn hibernating_changes_nothing(case: &TerminalCase) {
    use console2svg::term::Emulator;
    let (cols, rows) = (case.cols as usize, case.rows as usize);
    let mut awake = Emulator::new(cols, rows);
    let mut napping = Emulator::new(cols, rows);
    for (i, step) in case.steps.iter().enumerate() {
        for e in [&mut awake, &mut napping] {
            match step {
                TerminalStep::Feed(bytes) => e.advance(bytes),
                TerminalStep::Resize(c, r) => e.resize(*c as usize, *r as usize),
                TerminalStep::Snapshot => {}
                TerminalStep::ExpireSync => e.expire_sync(),
            }
        }
        napping.hibernate();
        assert!(napping.is_hibernating());
        assert_eq!(
            napping.snapshot_with_scrollback(),
            awake.snapshot_with_scrollback(),
            "asleep after step {i}"
        );
        assert_eq!(napping.cursor(), awake.cursor(), "cursor after step {i}");
        assert_eq!(
            (napping.cols(), napping.rows()),
            (awake.cols(), awake.rows())
        );
        assert_eq!(napping.modes(), awake.modes());
        assert_eq!(napping.row_text(0), awake.row_text(0));
    }
    let probe = b"\x1b[6n\x1bP$qm\x1b\\\x1bP$qr\x1b\\\x1b[?1$p";
    awake.advance(probe);
    napping.advance(probe);
    assert!(!napping.is_hibernating(), "a change wakes it");
    assert_eq!(napping.take_replies(), awake.take_replies(), "replies");
    assert_eq!(
        napping.snapshot_with_scrollback(),
        awake.snapshot_with_scrollback()
    );
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn hibernating_between_steps_changes_nothing(case in terminal_cases(1)) {
        hibernating_changes_nothing(&case);
    }
}

#[test]
fn hibernating_keeps_the_seed_cases() {
    for (name, case) in terminal_seeds().into_iter().chain(terminal_regressions()) {
        if case.cols > 132 && case.rows > 50 {
            continue; // seconds a case in a debug build; covered by the random cases' sizes
        }
        eprintln!("{name}");
        hibernating_changes_nothing(&case);
    }
}

/// Pieces of key names, durations, sizes, colours and pastes.
const VALUE_PIECES: &[&str] = &[
    "Ctrl+",
    "ctrl+",
    "Alt+",
    "Shift+",
    "Meta+",
    "Control+",
    "+",
    "Enter",
    "Tab",
    "Space",
    "F",
    "1",
    "12",
    "KP",
    "Enter",
    "Up",
    "Home",
    "a",
    "A",
    "é",
    "ß",
    "中",
    "😀",
    "[",
    "\\",
    "\u{7f}",
    "ms",
    "s",
    "m",
    "h",
    "0",
    "5",
    ".",
    "e",
    "-",
    " ",
    "\n",
    "x",
    "X",
    "*",
    "#",
    "f",
    "F0",
    "rgb(",
    "hsl(",
    ")",
    ",",
    "%",
    "nan",
    "inf",
    "\x1b[201~",
    "\x1b[20",
    "1~",
    "\x1b",
    "text",
    "outlines",
];

fn values() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(VALUE_PIECES), 1..8)
            .prop_map(|p| p.concat().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..32),
    ]
}

/// One edit of a mutated input.
#[derive(Debug, Clone)]
enum Edit {
    Delete(Index, usize),
    Insert(Index, Vec<u8>),
    Replace(Index, u8),
    Duplicate(Index, usize),
}

/// Bytes the mutations insert: structure of YAML and JSON, and odd values.
const INSERTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"",
    "'",
    "-",
    " ",
    "\n",
    "  ",
    "#",
    "&a",
    "*a",
    "!!str ",
    "?",
    "|",
    ">",
    "null",
    "true",
    "0",
    "-1",
    "1e999",
    "65536",
    "4294967296",
    "1.5",
    "\"\"",
    "\\u0000",
    "\\ud800",
    "中",
    "\u{0}",
    "$version: 1\n",
    "type: ",
    "wait",
    "send",
    "resize",
    "capture",
    "command",
    "op",
    "text",
    "keys",
    "Ctrl+",
    "raw-hex",
    "width",
    "height",
    "theme",
    "window",
    "ansi",
    "base",
    "macos",
    "#fff",
    "<<: *a\n",
];

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let insert = prop_oneof![
        3 => prop::sample::select(INSERTS).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 1..4),
    ];
    let edit = prop_oneof![
        (any::<Index>(), 1..16usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<Index>(), insert).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Replace(i, b)),
        (any::<Index>(), 1..32usize).prop_map(|(i, n)| Edit::Duplicate(i, n)),
    ];
    prop::collection::vec(edit, 1..6)
}

/// `seed` with `edits` applied, in order.
fn mutate(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for e in edits {
        let at = |i: &Index, len: usize| i.index(len + 1);
        match e {
            Edit::Delete(i, n) => {
                let from = at(i, out.len()).min(out.len());
                let to = (from + n).min(out.len());
                out.drain(from..to);
            }
            Edit::Insert(i, b) => {
                let p = at(i, out.len());
                out.splice(p..p, b.iter().copied());
            }
            Edit::Replace(i, b) => {
                if !out.is_empty() {
                    let p = i.index(out.len());
                    out[p] = *b;
                }
            }
            Edit::Duplicate(i, n) => {
                let from = at(i, out.len()).min(out.len());
                let to = (from + n).min(out.len());
                let piece = out[from..to].to_vec();
                out.splice(to..to, piece);
            }
        }
    }
    out
}

/// A corpus file of `target` with random edits.
fn mutated(target: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let seeds: Vec<Vec<u8>> = files("corpus", target).into_iter().map(|f| f.1).collect();
    (prop::sample::select(seeds), edits()).prop_map(|(seed, e)| mutate(&seed, &e))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn parsers_random(value in values()) {
        parsers(&value);
    }

    #[test]
    fn protocol_random(line in prop_oneof![
        3 => mutated("protocol"),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]) {
        protocol(&line);
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn documents_mutated(doc in mutated("documents")) {
        documents(&doc);
    }
}

// ---------------------------------------------------------------------------------------------
// The host's own request reader
// ---------------------------------------------------------------------------------------------

/// A private host (its own runtime directory), killed and deleted on drop.
struct Host {
    dir: tempfile::TempDir,
}

impl Host {
    fn start() -> Host {
        let dir = common::tempdir();
        common::console2svg()
            .env("CONSOLE2SVG_RUNTIME_DIR", dir.path().join("rt"))
            .env("CONSOLE2SVG_HOST_IDLE_SECS", "30")
            .current_dir(dir.path())
            .args(["session", "list"])
            .assert()
            .success();
        Host { dir }
    }

    fn rt(&self) -> PathBuf {
        self.dir.path().join("rt")
    }

    /// Sends one request line; returns the reply.
    fn ask(&self, line: &[u8]) -> Vec<u8> {
        let sock = self.rt().join("host.sock");
        let mut s = std::os::unix::net::UnixStream::connect(sock).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(line).unwrap();
        s.write_all(b"\n").unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).expect("a reply within 10 s");
        reply
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Some(pid) = common::host_pid(&self.rt()).and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
    }
}

/// Requests that start programs or turn the connection into a stream are not sent to the host:
/// they need a client that speaks them, and the point here is the reader.
fn sendable(line: &[u8]) -> bool {
    !matches!(
        serde_json::from_slice::<Request>(line),
        Ok(Request::Start(_)
            | Request::StopAll
            | Request::Extension(_)
            | Request::Subscribe
            | Request::Attach { .. })
    )
}

/// The request line as the host reads it: up to the first newline.
fn first_line(data: &[u8]) -> &[u8] {
    data.split(|&b| b == b'\n').next().unwrap_or_default()
}

fn one_json_line(line: &[u8], reply: &[u8]) {
    let text = String::from_utf8_lossy(reply);
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "one reply line for {}: {text:?}",
        escape(line)
    );
    let v: serde_json::Value = serde_json::from_str(&text).expect("the reply is JSON");
    assert_eq!(v["schemaVersion"], 1, "reply {text}");
}

/// The protocol corpus, then request lines made from it with random edits and random bytes:
/// each gets exactly one JSON line back from the real host's request reader, and the host goes
/// on answering.
#[test]
fn host_answers_every_request_line() {
    let host = Host::start();
    for (name, data) in files("corpus", "protocol") {
        let line = first_line(&data);
        if sendable(line) {
            let reply = bounded("host", line, |l| host.ask(l));
            eprintln!("{name}: {}", String::from_utf8_lossy(&reply).trim_end());
            one_json_line(line, &reply);
        }
    }
    let lines = prop_oneof![
        3 => mutated("protocol"),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(config(64));
    let result = runner.run(&lines, |data| {
        let line = first_line(&data);
        if sendable(line) {
            let reply = bounded("host", line, |l| host.ask(l));
            one_json_line(line, &reply);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    one_json_line(b"ping", &host.ask(br#"{"op":"ping"}"#));
}
