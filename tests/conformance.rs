//! Terminal conformance: byte fixtures fed to the emulator, checked against the grid and the
//! replies the standards give (xterm's ctlseqs, DEC STD 070, the VT420/VT510 manuals). These
//! guard in CI what the esctest2 suite measures (`benches/esctest.sh`), without the suite.

use console2svg::term::Emulator;

/// The emulator after `bytes`, at `cols`×`rows`.
fn fed(cols: usize, rows: usize, bytes: &[u8]) -> Emulator {
    let mut e = Emulator::new(cols, rows);
    e.advance(bytes);
    e.take_replies();
    e
}

/// The reply to `query`, as text.
fn reply(e: &mut Emulator, query: &[u8]) -> String {
    e.advance(query);
    String::from_utf8(e.take_replies()).unwrap()
}

/// DECRQCRA's reply for request `id` when the cells' character codes sum to `sum`: xterm's
/// (before patch 279) `DCS Pid ! ~ XXXX ST`, the 16-bit two's complement of the sum.
fn checksum_reply(id: u32, sum: u32) -> String {
    format!("\x1bP{id}!~{:04X}\x1b\\", (sum as u16).wrapping_neg())
}

#[test]
fn decrqcra_sums_the_character_codes_of_a_rectangle() {
    let mut e = fed(10, 4, b"AB\r\ncd");
    // One cell, a row's two cells, a 2×2 rectangle.
    assert_eq!(
        reply(&mut e, b"\x1b[1;1;1;1;1;1*y"),
        checksum_reply(1, 'A' as u32)
    );
    assert_eq!(
        reply(&mut e, b"\x1b[2;1;1;1;1;2*y"),
        checksum_reply(2, 'A' as u32 + 'B' as u32)
    );
    assert_eq!(
        reply(&mut e, b"\x1b[3;1;1;1;2;2*y"),
        checksum_reply(3, "ABcd".chars().map(|c| c as u32).sum())
    );
    // A blank cell counts as a space (xterm; DEC terminals trim trailing blanks).
    assert_eq!(
        reply(&mut e, b"\x1b[4;1;3;1;3;1*y"),
        checksum_reply(4, ' ' as u32)
    );
}

#[test]
fn decrqcra_defaults_to_the_whole_screen_and_clamps_to_it() {
    let mut e = fed(4, 2, b"abcd\r\nefgh");
    let all: u32 = "abcdefgh".chars().map(|c| c as u32).sum();
    assert_eq!(reply(&mut e, b"\x1b[9*y"), checksum_reply(9, all));
    assert_eq!(
        reply(&mut e, b"\x1b[9;1;0;0;99;99*y"),
        checksum_reply(9, all)
    );
    // Bottom above top: an empty rectangle sums to nothing.
    assert_eq!(reply(&mut e, b"\x1b[5;1;2;1;1;4*y"), checksum_reply(5, 0));
}

#[test]
fn decrqcra_answers_in_stream_order_across_reads() {
    let mut e = fed(10, 2, b"");
    // The request straddles two reads; the cell written before it counts, the one after not.
    e.advance(b"X\x1b[7;1;1;1;1");
    e.advance(b";2*yY");
    let r = String::from_utf8(e.take_replies()).unwrap();
    assert_eq!(r, checksum_reply(7, 'X' as u32 + ' ' as u32));
}

#[test]
fn erase_and_edit_sequences_change_the_cells_the_checksum_sees() {
    // ED 0 from the middle of a row, EL 1, ECH 2, ICH 1, DCH 1 (ctlseqs: CSI J, K, X, @, P).
    let mut e = fed(6, 3, b"abcdef\r\nghijkl\r\nmnopqr");
    let sum = |s: &str| s.chars().map(|c| c as u32).sum::<u32>();
    e.advance(b"\x1b[2;3H\x1b[J");
    assert_eq!(
        reply(&mut e, b"\x1b[1;1;2;1;3;6*y"),
        checksum_reply(1, sum("gh    ") + sum("      "))
    );
    e.advance(b"\x1b[1;3H\x1b[1K");
    assert_eq!(
        reply(&mut e, b"\x1b[2;1;1;1;1;6*y"),
        checksum_reply(2, sum("   def"))
    );
    e.advance(b"\x1b[1;4H\x1b[2X");
    assert_eq!(
        reply(&mut e, b"\x1b[3;1;1;1;1;6*y"),
        checksum_reply(3, sum("     f"))
    );
    let mut e = fed(6, 1, b"abcdef");
    e.advance(b"\x1b[1;2H\x1b[@");
    assert_eq!(
        reply(&mut e, b"\x1b[4;1;1;1;1;6*y"),
        checksum_reply(4, sum("a bcde"))
    );
    e.advance(b"\x1b[1;1H\x1b[P");
    assert_eq!(
        reply(&mut e, b"\x1b[5;1;1;1;1;6*y"),
        checksum_reply(5, sum(" bcde "))
    );
}

#[test]
fn decrqss_reports_the_sgr_in_effect() {
    let mut e = fed(10, 2, b"");
    // xterm's ctlseqs: DCS 1 $ r Pt ST for a valid request, Pt the setting's parameters and
    // final characters; SGR is reported from the default, starting with 0.
    assert_eq!(reply(&mut e, b"\x1bP$qm\x1b\\"), "\x1bP1$r0m\x1b\\");
    e.advance(b"\x1b[1;3;4:3;31;48;5;200m");
    assert_eq!(
        reply(&mut e, b"\x1bP$qm\x1b\\"),
        "\x1bP1$r0;1;3;4:3;31;48;5;200m\x1b\\"
    );
    e.advance(b"\x1b[0;7;92;48;2;1;2;3m");
    assert_eq!(
        reply(&mut e, b"\x1bP$qm\x1b\\"),
        "\x1bP1$r0;7;92;48;2;1;2;3m\x1b\\"
    );
}

#[test]
fn decrqss_reports_the_cursor_style_and_refuses_what_it_does_not_know() {
    let mut e = fed(10, 2, b"\x1b[4 q");
    assert_eq!(reply(&mut e, b"\x1bP$q q\x1b\\"), "\x1bP1$r4 q\x1b\\");
    e.advance(b"\x1b[5 q");
    assert_eq!(reply(&mut e, b"\x1bP$q q\x1b\\"), "\x1bP1$r5 q\x1b\\");
    // An unknown setting: DCS 0 $ r ST.
    assert_eq!(reply(&mut e, b"\x1bP$q+q\x1b\\"), "\x1bP0$r\x1b\\");
}

#[test]
fn an_edit_that_splits_a_wide_character_erases_all_of_it() {
    // xterm: ICH, DCH and ECH that touch either half of a double-width character erase the
    // whole character (a cell pair never survives half of it). Columns 2–3 hold 中.
    for (edit, want) in [
        (&b"\x1b[1;3H\x1b[X"[..], "a  b"), // ECH on the second half
        (b"\x1b[1;2H\x1b[X", "a  b"),      // ECH on the first half
        (b"\x1b[1;3H\x1b[P", "a b"),       // DCH of the second half
        (b"\x1b[1;3H\x1b[@", "a   b"),     // ICH between the halves
    ] {
        let mut e = fed(8, 1, "a中b".as_bytes());
        e.advance(edit);
        let screen = e.snapshot();
        assert_eq!(screen.row_text(0).trim_end(), want, "{edit:?}");
        for (c, cell) in screen.rows[0].iter().enumerate() {
            if cell.width == 2 {
                assert_eq!(screen.rows[0][c + 1].width, 0, "{edit:?}: pair at {c}");
            }
        }
    }
}

/// The cursor's 1-based (row, column), as CPR reports it.
fn cursor(e: &Emulator) -> (usize, usize) {
    let (row, col) = e.cursor();
    (row + 1, col + 1)
}

/// Rows `rows` of the screen as text, each cut to `width` cells (blanks as `.`).
fn grid(e: &Emulator, rows: std::ops::Range<usize>, width: usize) -> Vec<String> {
    let s = e.snapshot();
    rows.map(|r| {
        s.rows[r][..width]
            .iter()
            .map(|c| {
                if c.text.trim().is_empty() {
                    ".".to_string()
                } else {
                    c.text.clone()
                }
            })
            .collect()
    })
    .collect()
}

#[test]
fn mode_1048_saves_and_restores_the_cursor() {
    // xterm's ctlseqs: DECSET 1048 saves the cursor as DECSC does, DECRST 1048 restores it.
    let e = fed(10, 6, b"\x1b[3;2H\x1b[?1048h\x1b[5;5H\x1b[?1048l");
    assert_eq!(cursor(&e), (3, 2));
}
