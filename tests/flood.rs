//! A fast-forward through a flood (`term::flood`) never changes what is shown: output fed to the
//! emulator in one piece (fast-forwarded) and in pieces too small to skip (every byte emulated)
//! ends in the same screen, scrollback (text, colours, wrap marks), cursor, pen and replies.
//! Byte fixtures, hand-made and random.

mod common;

use console2svg::term::Emulator;
use proptest::prelude::*;

/// A line of a coloured log: SGR runs (some without a reset), a wide character now and then, a
/// TAB, and every seventh line long enough to wrap at narrow widths.
fn log_line(n: usize, out: &mut Vec<u8>) {
    let colour = 17 + n * 11 % 214;
    out.extend_from_slice(
        format!(
            "\x1b[90m{n:06}\x1b[0m \x1b[38;5;{colour}mmodule::{}\x1b[0m\t",
            n % 7
        )
        .as_bytes(),
    );
    if n % 5 == 2 {
        out.extend_from_slice("中文日志 ✓ id=".as_bytes());
    }
    if n % 9 == 4 {
        // The pen carries over the line end: no reset.
        out.extend_from_slice(b"\x1b[1;4;38;2;10;200;30m");
    }
    if n % 7 == 0 {
        out.extend_from_slice(&b"wrap-".repeat(30));
    }
    out.extend_from_slice(format!("request {n:08x} done\r\n").as_bytes());
}

fn flood(lines: std::ops::Range<usize>) -> Vec<u8> {
    let mut out = Vec::new();
    for n in lines {
        log_line(n, &mut out);
    }
    out
}

/// Feeds `bytes` to two emulators, whole and in pieces of `piece` bytes, and compares all a
/// program or a picture could see. Returns the whole one's fast-forwarded byte count.
fn same_either_way(cols: usize, rows: usize, scrollback: usize, bytes: &[u8]) -> u64 {
    same_either_way_after(b"", cols, rows, scrollback, bytes)
}

/// [`same_either_way`] after `before` was fed to both (in one piece, before the flood).
fn same_either_way_after(
    before: &[u8],
    cols: usize,
    rows: usize,
    scrollback: usize,
    bytes: &[u8],
) -> u64 {
    let probe = b"\x1b[6n\x1bP$qm\x1b\\";
    let mut whole = Emulator::with_scrollback(cols, rows, scrollback);
    whole.advance(before);
    whole.advance(bytes);
    whole.advance(probe);
    let mut pieces = Emulator::with_scrollback(cols, rows, scrollback);
    pieces.advance(before);
    for piece in bytes.chunks(4093) {
        pieces.advance(piece);
    }
    pieces.advance(probe);
    assert_eq!(pieces.fast_forwarded(), 0, "pieces are too small to skip");
    assert_eq!(
        whole.cursor(),
        pieces.cursor(),
        "cursor ({cols}×{rows}, {scrollback})"
    );
    assert_eq!(
        whole.take_replies(),
        pieces.take_replies(),
        "replies (CPR, the pen)"
    );
    assert_eq!(whole.modes(), pieces.modes());
    assert_eq!(
        whole.history_size(),
        pieces.history_size(),
        "scrollback rows"
    );
    assert_eq!(
        whole.snapshot_with_scrollback(),
        pieces.snapshot_with_scrollback(),
        "screen and scrollback ({cols}×{rows}, {scrollback})"
    );
    assert_eq!(whole.line_feeds(), pieces.line_feeds());
    assert_eq!(whole.title(), pieces.title());
    whole.fast_forwarded()
}

#[test]
fn a_flood_ends_as_if_every_byte_were_emulated_at_every_size() {
    let bytes = flood(0..12_000);
    for (cols, rows, scrollback) in [(100, 24, 2000), (40, 10, 50), (7, 3, 0), (200, 50, 5000)] {
        let skipped = same_either_way(cols, rows, scrollback, &bytes);
        assert!(
            skipped > bytes.len() as u64 / 4,
            "{cols}×{rows}/{scrollback}: only {skipped} of {} bytes fast-forwarded",
            bytes.len()
        );
    }
}

#[test]
fn the_pen_set_before_the_skipped_part_colours_what_follows() {
    // Set once, never reset: every kept row is bold, underlined and purple.
    let mut bytes = b"\x1b[1;4;38;5;99mstart\r\n".to_vec();
    for n in 0..9_000 {
        bytes.extend_from_slice(format!("plain line {n} with no SGR of its own\r\n").as_bytes());
    }
    assert!(same_either_way(80, 24, 100, &bytes) > 0);
    // And one set in the skipped part, after its last reset.
    let mut bytes = flood(0..6_000);
    bytes.extend_from_slice(b"\x1b[0m\x1b[7mreverse from here\r\n");
    for n in 0..3_000 {
        bytes.extend_from_slice(format!("plain line {n}\r\n").as_bytes());
    }
    assert!(same_either_way(80, 24, 100, &bytes) > 0);
}

#[test]
fn a_reset_in_the_skipped_part_clears_the_pen_of_earlier_output() {
    // The pen is set by an earlier chunk, then reset inside the part that is skipped.
    let mut bytes = b"before\r\n".to_vec();
    bytes.extend_from_slice(b"\x1b[0m");
    for n in 0..9_000 {
        bytes.extend_from_slice(format!("plain line {n}\r\n").as_bytes());
    }
    let mut whole = Emulator::with_scrollback(80, 24, 100);
    whole.advance(b"\x1b[7;31m");
    whole.advance(&bytes);
    assert!(whole.fast_forwarded() > 0);
    let mut pieces = Emulator::with_scrollback(80, 24, 100);
    pieces.advance(b"\x1b[7;31m");
    for piece in bytes.chunks(4093) {
        pieces.advance(piece);
    }
    assert_eq!(
        whole.snapshot_with_scrollback(),
        pieces.snapshot_with_scrollback()
    );
}

#[test]
fn a_flood_ending_in_a_prompt_without_a_newline_keeps_it() {
    let mut bytes = flood(0..8_000);
    bytes.extend_from_slice(b"\x1b[1;32muser@host\x1b[0m:~$ ");
    assert!(same_either_way(80, 24, 100, &bytes) > 0);
}

#[test]
fn sequences_in_the_flood_still_act_and_are_answered() {
    // A title, a query, a mode, a scroll region set and reset, and a tab stop: each is a
    // barrier; the plain runs between them are still skipped.
    let mut bytes = flood(0..5_000);
    bytes.extend_from_slice(b"\x1b]2;half way\x07\x1b[5n\x1b[?25l\x1bH\x1b[2;5r\x1b[r");
    bytes.extend_from_slice(&flood(5_000..10_000));
    bytes.extend_from_slice(b"\x1b[c\x07");
    bytes.extend_from_slice(&flood(10_000..15_000));
    let mut whole = Emulator::with_scrollback(80, 24, 100);
    whole.advance(&bytes);
    assert_eq!(whole.title(), Some("half way"));
    assert_eq!(whole.bells(), 1);
    let replies = whole.take_replies();
    assert!(
        replies.starts_with(b"\x1b[0n"),
        "DSR answered first: {replies:?}"
    );
    assert!(replies.len() > 4, "then DA1: {replies:?}");
    assert!(whole.fast_forwarded() > bytes.len() as u64 / 2);
    same_either_way(80, 24, 100, &bytes);
}

#[test]
fn nothing_is_skipped_on_the_alternate_screen_in_margins_or_in_an_open_frame() {
    for setup in [
        &b"\x1b[?1049h"[..],    // the alternate screen
        b"\x1b[1;20r",          // a scroll region
        b"\x1b[?69h\x1b[5;60s", // left and right margins
        b"\x1b[?7h\x1b[?45h",   // reverse wraparound
        b"\x1b[?2026h",         // a synchronized frame
    ] {
        let mut bytes = setup.to_vec();
        bytes.extend_from_slice(&flood(0..8_000));
        let mut em = Emulator::with_scrollback(80, 24, 100);
        em.advance(&bytes);
        assert_eq!(em.fast_forwarded(), 0, "{setup:?}");
    }
}

/// A chunk that begins inside a sequence (a batch of held output cut where the program's write
/// ended) is emulated up to the line that ends the sequence, then skipped as usual: the CSI's
/// colour and the OSC's title still take effect.
#[test]
fn a_chunk_starting_inside_a_sequence_is_skipped_once_the_sequence_ends() {
    for (before, first) in [
        (&b"\x1b[38;5"[..], &b";1m"[..]),
        (b"\x1b]0;a ti", b"tle\x07"),
        (b"\x1b[", b"1;31mstill red\r\n"),
    ] {
        let mut rest = first.to_vec();
        rest.extend_from_slice(&flood(0..8_000));
        let skipped = same_either_way_after(before, 80, 24, 100, &rest);
        assert!(skipped > rest.len() as u64 / 2, "{before:?}: {skipped}");
    }
    // Plain text gives no sequence to find the ground state by: nothing is skipped.
    let mut em = Emulator::with_scrollback(80, 24, 100);
    em.advance(b"\x1b[38;5");
    let mut rest = b";1m".to_vec();
    for n in 0..8_000 {
        rest.extend_from_slice(format!("plain line {n}\r\n").as_bytes());
    }
    em.advance(&rest);
    assert_eq!(em.fast_forwarded(), 0);
}

/// Random floods: lines from a small alphabet of text, SGR, wide characters, TAB, BS, bare CR
/// and now and then a barrier, at random sizes.
fn arb_flood() -> impl Strategy<Value = (usize, usize, usize, Vec<u8>)> {
    let piece = prop_oneof![
        8 => "[a-z0-9 ]{1,40}".prop_map(|s| s.into_bytes()),
        3 => (0u8..108).prop_map(|p| format!("\x1b[{p}m").into_bytes()),
        1 => (0u8..=255).prop_map(|c| format!("\x1b[38;5;{c}m").into_bytes()),
        1 => Just("中✓é".as_bytes().to_vec()),
        1 => Just(b"\t".to_vec()),
        1 => Just(b"\x08".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"\x1b[m".to_vec()),
    ];
    let line = prop::collection::vec(piece, 1..6).prop_map(|ps| {
        let mut l = ps.concat();
        l.extend_from_slice(b"\r\n");
        l
    });
    let barrier = prop_oneof![
        Just(b"\x1b[6n".to_vec()),
        Just(b"\x1b]0;t\x07".to_vec()),
        Just(b"\x1b[3;1H".to_vec()),
        Just(b"\x1b[K".to_vec()),
        Just(b"\n".to_vec()),
    ];
    (
        1usize..120,
        1usize..30,
        0usize..200,
        prop::collection::vec(line, 200..400),
        prop::collection::vec((any::<prop::sample::Index>(), barrier), 0..3),
        1usize..40,
    )
        .prop_map(|(cols, rows, scrollback, lines, barriers, repeat)| {
            let mut lines = lines;
            for (at, b) in barriers {
                let i = at.index(lines.len());
                lines[i].extend_from_slice(&b);
            }
            // Repeat the block so the flood passes the smallest skip.
            let block = lines.concat();
            (
                cols,
                rows,
                scrollback,
                block.repeat(repeat.max(65_536 / block.len().max(1) + 1)),
            )
        })
}

/// 24 random cases; under `CI=true` (unless `PROPTEST_RNG_SEED` names one) always the same
/// ones, so a red CI run is reproducible and never a coin toss.
fn config() -> ProptestConfig {
    let defaults = ProptestConfig::default();
    let rng_seed = common::proptest_seed(defaults.rng_seed);
    ProptestConfig {
        cases: 24,
        rng_seed,
        failure_persistence: None,
        ..defaults
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn random_floods_end_as_if_every_byte_were_emulated((cols, rows, scrollback, bytes) in arb_flood()) {
        same_either_way(cols, rows, scrollback, &bytes);
    }
}
