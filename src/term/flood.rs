//! Fast-forward through a flood: output bound to scroll out of the scrollback before anyone can
//! see it is not emulated.
//!
//! A program printing a 50 MB log leaves on screen and in the scrollback only its last
//! `rows + scrollback` rows; emulating the rest costs most of the time and shows nothing.
//! [`plan`] finds, in one chunk of output, the longest prefix that cannot leave a trace: it
//! holds only printable text, CR, LF, TAB, BS and SGR sequences (`CSI … m`), it ends with a CR
//! LF, and at least `keep` more line feeds of the same plain kind follow it in the chunk. Such a
//! prefix moves no mode, title, tab stop, charset or hyperlink and asks nothing; every row it
//! writes is pushed out of the screen and then out of the scrollback by the `keep` line feeds
//! after it (each scrolls once the cursor is at the bottom, given a full scroll region and the
//! primary screen: [`super::Emulator`] checks those). Its only lasting effects are the cursor
//! (column 0 after the CR LF, the bottom row after enough line feeds) and the pen (the SGR
//! state), which [`Skip::stand_in`] reproduces: the SGR sequences since the last full reset,
//! then a CR LF per screen row.
//!
//! Any other control or escape sequence is a barrier: the prefix stops before it, and it is
//! emulated as usual (queries are answered, modes applied) — a fast-forward never changes what
//! a program sees or what is shown, only how much work it takes. `tests/flood.rs` holds the proof
//! by example: a flood fed in one piece and in small pieces ends in identical screens,
//! scrollback, cursor, pen and replies.

/// Line feeds kept beyond the screen and scrollback rows, so rounding in how the scrollback
/// drops rows can never expose a skipped row.
pub(super) const MARGIN_ROWS: usize = 64;

/// The smallest prefix worth skipping, in bytes: below it the scan costs more than it saves.
pub(super) const MIN_SKIP: usize = 64 * 1024;

const ESC: u8 = 0x1b;

/// A prefix of a chunk that need not be emulated (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Skip {
    /// The prefix's length in bytes: it ends just after a CR LF.
    pub cut: usize,
    /// The SGR sequences of the prefix from its last full reset (`CSI m`, `CSI 0 m`) on, in
    /// order: fed to the emulator, they leave the pen as the whole prefix would.
    pub pen: Vec<u8>,
}

impl Skip {
    /// What the emulator parses instead of the prefix, for a screen of `rows` rows: the pen,
    /// then a CR LF per row, which leaves the cursor at column 0 of the bottom row as the prefix
    /// would (the rows it writes are pushed out by the line feeds that follow).
    pub fn stand_in(&self, rows: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pen.len() + rows * 2);
        out.extend_from_slice(&self.pen);
        for _ in 0..rows {
            out.extend_from_slice(b"\r\n");
        }
        out
    }
}

/// What [`plan`] found at the start of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Scan {
    /// The length of the plain prefix (text, CR, LF, TAB, BS, SGR): where the first barrier
    /// (or the end) is.
    pub plain: usize,
    /// The part of it that need not be emulated, if any.
    pub skip: Option<Skip>,
}

/// Scans the plain prefix of `bytes` and finds its skippable part, given that `keep` plain line
/// feeds must follow it (the screen rows plus the scrollback plus [`MARGIN_ROWS`]); no skip
/// when it would be shorter than [`MIN_SKIP`]. The caller guarantees that the parser is in its
/// ground state before `bytes` (no sequence open) and that the terminal state allows it (see
/// the module documentation). Costs a pass over the plain prefix only.
pub(super) fn plan(bytes: &[u8], keep: usize) -> Scan {
    let (plain, feeds) = plain_prefix(bytes);
    let skip = (plain >= MIN_SKIP && feeds > keep)
        .then(|| skip_in(&bytes[..plain], feeds - keep))
        .flatten();
    Scan { plain, skip }
}

/// The skip of the plain `prefix` ending at its `nth` line feed (1-based) or an earlier one
/// after a CR.
fn skip_in(prefix: &[u8], nth: usize) -> Option<Skip> {
    let mut lf = memchr::memchr_iter(b'\n', prefix).nth(nth - 1)?;
    // The cursor must be at column 0: the skip ends with CR LF (an earlier one keeps more).
    while lf == 0 || prefix[lf - 1] != b'\r' {
        lf = memchr::memrchr(b'\n', &prefix[..lf])?;
    }
    let cut = lf + 1;
    (cut >= MIN_SKIP).then(|| Skip {
        cut,
        pen: pen(&prefix[..cut]),
    })
}

/// The length of the longest prefix of `bytes` holding only printable text (UTF-8), CR, LF,
/// TAB, BS, DEL and complete SGR sequences, and the line feeds in it.
fn plain_prefix(bytes: &[u8]) -> (usize, usize) {
    let mut feeds = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time through text (the bulk of a log), to the next byte that needs
        // a look: a C0 control, or 0xC2 (the lead byte of U+0080–U+009F).
        while let Some(word) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if has_byte_below(w, 0x20) || has_byte_below(w ^ (ONES * 0xc2), 1) {
                break;
            }
            i += 8;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        if b >= 0x20 && b != 0xc2 {
            i += 1;
            continue;
        }
        match b {
            b'\n' => feeds += 1,
            b'\r' | b'\t' | 0x08 => {}
            // U+0080–U+009F, C1 controls when taken as such.
            0xc2 if bytes.get(i + 1).is_some_and(|c| (0x80..=0x9f).contains(c)) => break,
            0xc2 => {}
            ESC => match sgr_end(bytes, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => break,
            },
            _ => break,
        }
        i += 1;
    }
    (i, feeds)
}

/// `0x0101…01`: a byte value times this is that byte in every lane of a word.
const ONES: u64 = u64::from_le_bytes([1; 8]);

/// Whether some byte of `w` is below `n` (`n` ≤ 128): the borrow of a lane's subtraction
/// shows in its top bit only when the lane's own top bit was clear (Bit Twiddling Hacks,
/// "Determine if a word has a byte less than n"; exact about whether there is one).
fn has_byte_below(w: u64, n: u8) -> bool {
    w.wrapping_sub(ONES * n as u64) & !w & (ONES * 0x80) != 0
}

/// The end (exclusive) of the SGR sequence `CSI Ps… m` starting with the ESC at `at`, or
/// `None` when what starts there is anything else or is cut off.
fn sgr_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at + 1) != Some(&b'[') {
        return None;
    }
    let mut j = at + 2;
    // A private marker (`<=>?`) makes it another sequence.
    if bytes.get(j).is_some_and(|b| (b'<'..=b'?').contains(b)) {
        return None;
    }
    while bytes.get(j).is_some_and(|b| (b'0'..=b';').contains(b)) {
        j += 1;
    }
    (bytes.get(j) == Some(&b'm')).then_some(j + 1)
}

/// The SGR sequences of the plain `prefix` from its last full reset on (the reset included: it
/// clears the pen the chunk began with), in order. Every ESC in a
/// plain prefix starts an SGR sequence, so the search walks back from ESC to ESC (a log resets
/// on every line: a few steps).
fn pen(prefix: &[u8]) -> Vec<u8> {
    let mut from = 0;
    let mut end = prefix.len();
    while let Some(p) = memchr::memrchr(ESC, &prefix[..end]) {
        let seq = &prefix[p..];
        if seq.starts_with(b"\x1b[m") || seq.starts_with(b"\x1b[0m") {
            from = p;
            break;
        }
        end = p;
    }
    let mut out = Vec::new();
    let mut i = from;
    while let Some(p) = memchr::memchr(ESC, &prefix[i..]).map(|p| p + i) {
        let end = sgr_end(prefix, p).expect("the prefix holds only SGR sequences");
        out.extend_from_slice(&prefix[p..end]);
        i = end;
    }
    out
}

/// Whether the parser is in its ground state after `bytes`, given whether it was before:
/// `false` when unsure. Looks only at the last ESC (every ESC starts a new sequence, ending any
/// string before it): the sequence it starts must be complete. Without an ESC the state is as
/// before, except that a BEL or CAN may end a string: then unsure unless it was ground.
pub(super) fn ends_in_ground(was_ground: bool, bytes: &[u8]) -> bool {
    let Some(e) = memchr::memrchr(ESC, bytes) else {
        return was_ground;
    };
    let tail = &bytes[e + 1..];
    match tail.first() {
        None => false,
        Some(b'[') => {
            // Parameters and intermediates, then a final byte; a C0 inside is unusual: unsure.
            match tail[1..].iter().position(|b| !(0x20..=0x3f).contains(b)) {
                Some(p) => (0x40..=0x7e).contains(&tail[1 + p]),
                None => false,
            }
        }
        // OSC ends with BEL here (ST would be the last ESC); other strings need ST.
        Some(b']') => tail.contains(&0x07),
        Some(b'P' | b'X' | b'^' | b'_') => false,
        Some(b'\\') => true,
        Some(_) => match tail.iter().position(|b| !(0x20..=0x2f).contains(b)) {
            Some(p) => (0x30..=0x7e).contains(&tail[p]),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(lines: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for n in 0..lines {
            out.extend_from_slice(
                format!(
                    "\x1b[32mINFO\x1b[0m line {n} \x1b[1;38;5;{}mbold\x1b[0m tail\r\n",
                    n % 200
                )
                .as_bytes(),
            );
        }
        out
    }

    #[test]
    fn a_plain_flood_is_skipped_up_to_a_cr_lf_keeping_the_last_lines() {
        let bytes = log(10_000);
        let skip = plan(&bytes, 2_100).skip.expect("a skip");
        assert!(bytes[..skip.cut].ends_with(b"\r\n"));
        let kept = memchr::memchr_iter(b'\n', &bytes[skip.cut..]).count();
        assert_eq!(kept, 2_100);
        // Every line ends with a reset: the pen is that reset.
        assert_eq!(skip.pen, b"\x1b[0m");
    }

    #[test]
    fn the_pen_holds_the_sgr_since_the_last_reset() {
        let mut bytes = log(5_000);
        bytes.extend_from_slice(b"\x1b[0mx\x1b[1mbold \x1b[38;2;1;2;3mrgb\r\n");
        bytes.extend_from_slice(&log(3_000));
        let skip = plan(&bytes, 3_000).skip.expect("a skip");
        // The reset first: the pen before the chunk is gone.
        assert_eq!(skip.pen, b"\x1b[0m\x1b[1m\x1b[38;2;1;2;3m");
        assert_eq!(
            skip.stand_in(2),
            b"\x1b[0m\x1b[1m\x1b[38;2;1;2;3m\r\n\r\n".to_vec()
        );
    }

    #[test]
    fn any_other_sequence_or_control_is_a_barrier() {
        for barrier in [
            &b"\x1b[6n"[..],      // a query
            b"\x1b]0;title\x07",  // OSC
            b"\x1b[?1049h",       // a private mode
            b"\x1b(0",            // a charset
            b"\x07",              // BEL
            b"\x0e",              // SO
            b"\xc2\x9b1m",        // C1 CSI in UTF-8
            b"\x1b[1:2m\x1b[>4m", // a private SGR-like sequence
            b"\x1b[2;5r",         // DECSTBM
        ] {
            let mut bytes = log(5_000);
            let at = bytes.len();
            bytes.extend_from_slice(barrier);
            bytes.extend_from_slice(&log(3_000));
            let scan = plan(&bytes, 2_000);
            let skip = scan.skip.expect("a skip before the barrier");
            assert!(skip.cut <= at, "{barrier:?}: cut {} past {at}", skip.cut);
            let kept = memchr::memchr_iter(b'\n', &bytes[skip.cut..at]).count();
            assert_eq!(kept, 2_000, "{barrier:?}");
        }
    }

    /// The word-at-a-time scan finds the same plain prefix as a byte-by-byte one, whatever
    /// the alignment of the byte that ends it: every control byte, 0xC2 with and without a C1
    /// after it, and bytes just above the controls.
    #[test]
    fn the_word_scan_stops_where_a_byte_scan_does() {
        fn bytewise(bytes: &[u8]) -> (usize, usize) {
            let mut feeds = 0;
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\n' => feeds += 1,
                    b'\r' | b'\t' | 0x08 => {}
                    0xc2 if bytes.get(i + 1).is_some_and(|c| (0x80..=0x9f).contains(c)) => break,
                    ESC => match sgr_end(bytes, i) {
                        Some(end) => {
                            i = end;
                            continue;
                        }
                        None => break,
                    },
                    b if b < 0x20 => break,
                    _ => {}
                }
                i += 1;
            }
            (i, feeds)
        }
        let specials: Vec<&[u8]> = (0u8..0x20)
            .map(|b| vec![b])
            .chain([
                vec![0xc2, 0x85],
                vec![0xc2, 0xa0],
                vec![0x20],
                vec![0x7f],
                vec![0xff],
            ])
            .map(|v| &*Vec::leak(v))
            .collect();
        for special in specials {
            for at in 0..20 {
                let mut bytes = "é\x1b[1mtext中\r\n".repeat(3).into_bytes();
                bytes.truncate(at);
                bytes.extend_from_slice(special);
                bytes.extend_from_slice(b"more text after it\r\n");
                assert_eq!(
                    plain_prefix(&bytes),
                    bytewise(&bytes),
                    "{special:?} at {at}"
                );
            }
        }
    }

    #[test]
    fn too_few_lines_or_bytes_skip_nothing() {
        assert_eq!(plan(&log(3_000), 3_000).skip, None);
        assert_eq!(plan(&log(100), 10).skip, None, "below MIN_SKIP");
        // Bare line feeds (no CR): the column at a cut is unknown.
        let bare: Vec<u8> = log(10_000).into_iter().filter(|&b| b != b'\r').collect();
        assert_eq!(plan(&bare, 100).skip, None);
    }

    #[test]
    fn the_ground_state_is_known_only_after_complete_sequences() {
        assert!(ends_in_ground(true, b"text\r\n"));
        assert!(!ends_in_ground(false, b"text\r\n"));
        assert!(ends_in_ground(false, b"\x1b[1;31mred"));
        assert!(!ends_in_ground(true, b"red\x1b[1;3"));
        assert!(!ends_in_ground(true, b"red\x1b"));
        assert!(ends_in_ground(false, b"\x1b]0;t\x07x"));
        assert!(!ends_in_ground(true, b"\x1b]0;t"));
        assert!(!ends_in_ground(true, b"\x1bPq#0"));
        assert!(ends_in_ground(false, b"\x1bPq#0\x1b\\"));
        assert!(ends_in_ground(false, b"\x1b(0x"));
        assert!(!ends_in_ground(true, b"\x1b("));
    }
}
