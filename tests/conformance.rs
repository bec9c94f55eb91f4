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

/// The first `width` cells of row `row` (1-based) as text, blanks as `.`.
fn row(e: &Emulator, row: usize, width: usize) -> String {
    grid(e, row - 1..row, width).remove(0)
}

/// Five rows `abcde`, `fghij`, … on a 5-column-wide area, the cursor home.
const LETTERS: &[u8] = b"abcde\r\nfghij\r\nklmno\r\npqrst\r\nuvwxy\x1b[H";

#[test]
fn decstr_resets_modes_and_margins_and_leaves_the_cursor_where_it_is() {
    // DEC STD 070 / xterm's soft reset: IRM, DECOM, DECSTBM, DECSLRM, DECSCA reset; the
    // saved cursor goes home; the cursor does not move.
    let mut e = fed(
        10,
        6,
        b"\x1b[2;4r\x1b[?69h\x1b[3;6s\x1b[?6h\x1b[4h\x1b[1\"q\x1b[5;6H\x1b7\x1b[2;3H\x1b[!p",
    );
    assert_eq!(cursor(&e), (3, 5), "origin-relative position, kept");
    assert_eq!(
        reply(&mut e, b"\x1b[?6$p\x1b[4$p\x1b[?69$p"),
        "\x1b[?6;2$y\x1b[4;2$y\x1b[?69;2$y"
    );
    assert_eq!(reply(&mut e, b"\x1bP$qr\x1b\\"), "\x1bP1$r1;6r\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q\"q\x1b\\"), "\x1bP1$r0\"q\x1b\\");
    e.advance(b"\x1b8");
    assert_eq!(cursor(&e), (1, 1), "the saved cursor is home");
}

#[test]
fn selective_erase_spares_what_decsca_protected() {
    // DECSCA 1 protects the characters written after it (SGR 0 does not end it); DECSED and
    // DECSEL erase only unprotected ones, ED erases all.
    let mut e = fed(
        6,
        2,
        b"ab\x1b[1\"qc\x1b[0md\x1b[0\"qef\r\ngh\x1b[1\"qi\x1b[0\"qj",
    );
    e.advance(b"\x1b[?2J");
    assert_eq!(grid(&e, 0..2, 6), ["..cd..", "..i..."]);
    e.advance(b"\x1b[1;1H\x1b[?2K");
    assert_eq!(row(&e, 1, 6), "..cd..");
    e.advance(b"\x1b[2J");
    assert_eq!(grid(&e, 0..2, 6), ["......", "......"]);
}

#[test]
fn a_guarded_area_is_spared_by_ed_el_and_ech() {
    // SPA/EPA (ECMA-48 guarded area): ED, EL and ECH leave its characters.
    for erase in [&b"\x1b[H\x1b[5X"[..], b"\x1b[H\x1b[2K", b"\x1b[2J"] {
        let mut e = fed(5, 1, b"ab\x1bVc\x1bWd");
        e.advance(erase);
        assert_eq!(row(&e, 1, 5), "..c..", "{erase:?}");
    }
}

#[test]
fn rectangle_fill_erase_and_copy() {
    // DECFRA fills with a character, DECERA blanks, DECCRA copies (VT420; rows and columns
    // 1-based and inclusive); none moves the cursor.
    let mut e = fed(5, 5, LETTERS);
    e.advance(b"\x1b[3;3H\x1b[42;2;2;3;4$x");
    assert_eq!(grid(&e, 0..3, 5), ["abcde", "f***j", "k***o"]);
    e.advance(b"\x1b[1;4;2;5$z");
    assert_eq!(grid(&e, 0..2, 5), ["abc..", "f**.."]);
    e.advance(b"\x1b[4;1;5;2;1;1;4;1$v");
    assert_eq!(grid(&e, 0..2, 5), ["abcpq", "f**uv"]);
    assert_eq!(cursor(&e), (3, 3));
    // A rectangle with its bottom above its top does nothing.
    e.advance(b"\x1b[42;3;1;2;5$x");
    assert_eq!(row(&e, 3, 5), "k***o");
}

#[test]
fn rectangles_count_from_the_origin_in_origin_mode() {
    // With DECOM the coordinates are relative to the scroll region's top and the left margin.
    let mut e = fed(5, 5, LETTERS);
    e.advance(b"\x1b[?69h\x1b[2;4s\x1b[2;4r\x1b[?6h\x1b[42;1;1;2;2$x\x1b[?6l");
    assert_eq!(grid(&e, 0..3, 5), ["abcde", "f**ij", "k**no"]);
    // DECRQCRA too: its rectangle 1;1 is the origin's cell.
    e.advance(b"\x1b[?6h");
    assert_eq!(
        reply(&mut e, b"\x1b[1;1;1;1;1;1*y"),
        checksum_reply(1, '*' as u32)
    );
}

#[test]
fn decsera_erases_only_unprotected_characters() {
    let mut e = fed(5, 1, b"a\x1b[1\"qb\x1b[0\"qc");
    e.advance(b"\x1b[1;1;1;5${");
    assert_eq!(row(&e, 1, 5), ".b...");
}

#[test]
fn column_insert_and_delete_stay_in_the_margins() {
    // DECIC and DECDC (VT420): columns at the cursor move right or left between the left and
    // right margins, in the scroll region.
    let mut e = fed(5, 5, LETTERS);
    e.advance(b"\x1b[2;4r\x1b[?69h\x1b[2;4s\x1b[2;3H\x1b['}");
    assert_eq!(
        grid(&e, 0..5, 5),
        ["abcde", "fg.hj", "kl.mo", "pq.rt", "uvwxy"]
    );
    e.advance(b"\x1b[2'~");
    assert_eq!(
        grid(&e, 0..5, 5),
        ["abcde", "fg..j", "kl..o", "pq..t", "uvwxy"]
    );
}

#[test]
fn back_and_forward_index_scroll_the_columns_at_the_margins() {
    // DECBI at the left margin moves the text right, DECFI at the right margin moves it left
    // (VT420); elsewhere they move the cursor.
    let mut e = fed(5, 2, b"abcde\r\nfghij\x1b[1;1H\x1b6");
    assert_eq!(grid(&e, 0..2, 5), [".abcd", ".fghi"]);
    e.advance(b"\x1b[1;5H\x1b9\x1b9");
    assert_eq!(grid(&e, 0..2, 5), ["bcd..", "ghi.."]);
    e.advance(b"\x1b[1;3H\x1b9");
    assert_eq!(cursor(&e), (1, 4));
}

#[test]
fn text_wraps_at_the_right_margin_to_the_left_margin() {
    // DECLRMM + DECSLRM 2;4: writing wraps from column 4 to column 2 of the next row; at the
    // scroll region's bottom only the text between the margins scrolls.
    let e = fed(5, 3, b"\x1b[?69h\x1b[2;4s\x1b[1;2Habcdefgh");
    assert_eq!(grid(&e, 0..3, 5), [".abc.", ".def.", ".gh.."]);
    let e = fed(5, 2, b"12345\r\n67890\x1b[?69h\x1b[2;4s\x1b[2;2Habcd");
    assert_eq!(grid(&e, 0..2, 5), ["1abc5", "6d..0"]);
    // Autowrap off: the last column between the margins is written over.
    let e = fed(5, 1, b"\x1b[?7l\x1b[?69h\x1b[2;4s\x1b[1;2Habcde");
    assert_eq!(row(&e, 1, 5), ".abe.");
}

#[test]
fn decslrm_needs_declrmm_else_csi_s_saves_the_cursor() {
    // Without DECLRMM `CSI s` is SCOSC (xterm), with it DECSLRM (which homes the cursor).
    let e = fed(10, 3, b"\x1b[2;5H\x1b[3;6s\x1b[1;1H\x1b[u");
    assert_eq!(cursor(&e), (2, 5));
    let mut e = fed(10, 3, b"\x1b[2;5H\x1b[?69h\x1b[3;6s");
    assert_eq!(cursor(&e), (1, 1));
    assert_eq!(reply(&mut e, b"\x1bP$qs\x1b\\"), "\x1bP1$r3;6s\x1b\\");
    e.advance(b"\x1b[?69l");
    assert_eq!(reply(&mut e, b"\x1bP$qs\x1b\\"), "\x1bP1$r1;10s\x1b\\");
}

#[test]
fn cursor_motion_stops_at_the_margins() {
    // CR goes to the left margin, BS and CUB stop at it, CUF and HT stop at the right margin,
    // CUU and CUD at the scroll region's edges (when they start inside).
    let mut e = fed(10, 6, b"\x1b[?69h\x1b[3;7s\x1b[2;5r\x1b[3;5H\r");
    assert_eq!(cursor(&e), (3, 3));
    e.advance(b"\x08\x1b[9D");
    assert_eq!(cursor(&e), (3, 3));
    e.advance(b"\x1b[99C");
    assert_eq!(cursor(&e), (3, 7));
    e.advance(b"\r\t\t");
    assert_eq!(cursor(&e), (3, 7));
    e.advance(b"\x1b[99A");
    assert_eq!(cursor(&e), (2, 7));
    e.advance(b"\x1b[99B");
    assert_eq!(cursor(&e), (5, 7));
    e.advance(b"\x1b[6;1H\x1b[9A");
    assert_eq!(
        cursor(&e),
        (2, 1),
        "from below the region: stops at its top"
    );
}

#[test]
fn line_and_character_edits_stay_between_the_margins() {
    // IL, DL, SU, SD, ICH and DCH with margins 2;4 and region 2;4 move only that rectangle.
    let edits: [(&[u8], [&str; 5]); 6] = [
        (
            b"\x1b[2;3H\x1b[L",
            ["abcde", "f...j", "kghio", "plmnt", "uvwxy"],
        ),
        (
            b"\x1b[2;3H\x1b[M",
            ["abcde", "flmnj", "kqrso", "p...t", "uvwxy"],
        ),
        (b"\x1b[S", ["abcde", "flmnj", "kqrso", "p...t", "uvwxy"]),
        (b"\x1b[T", ["abcde", "f...j", "kghio", "plmnt", "uvwxy"]),
        (
            b"\x1b[3;2H\x1b[@",
            ["abcde", "fghij", "k.lmo", "pqrst", "uvwxy"],
        ),
        (
            b"\x1b[3;2H\x1b[P",
            ["abcde", "fghij", "kmn.o", "pqrst", "uvwxy"],
        ),
    ];
    for (edit, want) in edits {
        let mut e = fed(5, 5, LETTERS);
        e.advance(b"\x1b[2;4r\x1b[?69h\x1b[2;4s");
        e.advance(edit);
        assert_eq!(grid(&e, 0..5, 5), want, "{edit:?}");
    }
    // Outside the margins they do nothing.
    let mut e = fed(5, 5, LETTERS);
    e.advance(b"\x1b[2;4r\x1b[?69h\x1b[2;4s\x1b[3;5H\x1b[P\x1b[L");
    assert_eq!(
        grid(&e, 0..5, 5),
        ["abcde", "fghij", "klmno", "pqrst", "uvwxy"]
    );
}

#[test]
fn index_and_reverse_index_scroll_between_the_margins_only_from_inside() {
    let mut e = fed(5, 5, LETTERS);
    e.advance(b"\x1b[2;4r\x1b[?69h\x1b[2;4s\x1b[4;3H\x1bD");
    assert_eq!(grid(&e, 1..4, 5), ["flmnj", "kqrso", "p...t"]);
    e.advance(b"\x1b[2;3H\x1bM");
    assert_eq!(grid(&e, 1..4, 5), ["f...j", "klmno", "pqrst"]);
    // From a column outside the margins nothing scrolls.
    e.advance(b"\x1b[4;5H\x1bD\n");
    assert_eq!(grid(&e, 1..4, 5), ["f...j", "klmno", "pqrst"]);
    assert_eq!(cursor(&e), (4, 5));
}

#[test]
fn origin_mode_counts_from_the_margins_and_cpr_reports_so() {
    // DECOM: CUP is relative to the region's top and the left margin and kept inside them;
    // CPR and DECXCPR report origin-relative positions (DEC STD 070).
    let mut e = fed(10, 8, b"\x1b[3;6r\x1b[?69h\x1b[4;8s\x1b[?6h\x1b[2;3HX");
    assert_eq!(reply(&mut e, b"\x1b[6n"), "\x1b[2;4R");
    assert_eq!(reply(&mut e, b"\x1b[?6n"), "\x1b[?2;4R");
    e.advance(b"\x1b[99;99H");
    assert_eq!(reply(&mut e, b"\x1b[6n"), "\x1b[4;5R");
    e.advance(b"\x1b[?6l");
    assert_eq!(row(&e, 4, 10), ".....X....");
}

#[test]
fn dec_status_reports() {
    // DECDSR (`CSI ? Ps n`): printer 15 → no printer, UDK 25 → locked, keyboard 26 → North
    // American, locator 55 → none, data integrity 75 → no errors, sessions 85 → not
    // configured; DECCKSR 63 → a DECRQCRA-style reply with the request's id.
    let mut e = fed(10, 2, b"");
    for (query, answer) in [
        (&b"\x1b[?15n"[..], "\x1b[?13n"),
        (b"\x1b[?25n", "\x1b[?21n"),
        (b"\x1b[?26n", "\x1b[?27;1n"),
        (b"\x1b[?55n", "\x1b[?50n"),
        (b"\x1b[?75n", "\x1b[?70n"),
        (b"\x1b[?85n", "\x1b[?83n"),
        (b"\x1b[?63;9n", "\x1bP9!~0000\x1b\\"),
    ] {
        assert_eq!(reply(&mut e, query), answer, "{query:?}");
    }
}

#[test]
fn decrqm_answers_for_modes_it_does_not_support() {
    // ECMA-48 modes a VT terminal keeps permanently reset answer 4, unknown modes 0 ("not
    // recognised"); DECLRMM 1 or 2 as set.
    let mut e = fed(10, 2, b"");
    assert_eq!(
        reply(&mut e, b"\x1b[1$p\x1b[19$p\x1b[99$p"),
        "\x1b[1;4$y\x1b[19;4$y\x1b[99;0$y"
    );
    assert_eq!(reply(&mut e, b"\x1b[?9999$p"), "\x1b[?9999;0$y");
    assert_eq!(reply(&mut e, b"\x1b[?69h\x1b[?69$p"), "\x1b[?69;1$y");
}

#[test]
fn decrqss_reports_region_margins_protection_and_level() {
    // DECSCL comes first: selecting a level soft-resets (the region, the protection).
    let mut e = fed(10, 6, b"\x1b[64;1\"p\x1b[2;5r\x1b[1\"q");
    assert_eq!(reply(&mut e, b"\x1bP$qr\x1b\\"), "\x1bP1$r2;5r\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q\"q\x1b\\"), "\x1bP1$r1\"q\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q\"p\x1b\\"), "\x1bP1$r64;1\"p\x1b\\");
}

#[test]
fn window_reports_and_the_title_stack() {
    // xterm's window operations: 11 state, 13 position, 19 screen size, 20/21 icon label and
    // title; 22/23 push and pop both (0), the icon label (1) or the title (2).
    let mut e = fed(12, 4, b"\x1b]0;both\x07");
    assert_eq!(reply(&mut e, b"\x1b[11t"), "\x1b[1t");
    assert_eq!(reply(&mut e, b"\x1b[19t"), "\x1b[9;4;12t");
    assert_eq!(
        reply(&mut e, b"\x1b[20t\x1b[21t"),
        "\x1b]Lboth\x1b\\\x1b]lboth\x1b\\"
    );
    e.advance(b"\x1b[22;0t\x1b]1;icon\x07\x1b]2;title\x07\x1b[23;1t");
    assert_eq!(
        reply(&mut e, b"\x1b[20t\x1b[21t"),
        "\x1b]Lboth\x1b\\\x1b]ltitle\x1b\\"
    );
    // The entry is gone: popping the title now does nothing.
    e.advance(b"\x1b[23;2t");
    assert_eq!(e.title(), Some("title"));
}

#[test]
fn reverse_wraparound_backs_up_to_the_row_above() {
    // xterm's mode 45 with autowrap: BS at the left edge goes to the right edge of the row
    // above (from the region's top to its bottom); a pending wrap is only cancelled.
    let e = fed(10, 4, b"\x1b[?45h\x1b[3;1H\x08");
    assert_eq!(cursor(&e), (2, 10));
    let e = fed(10, 4, b"\x1b[?45h\x1b[2;3r\x1b[2;1H\x08");
    assert_eq!(cursor(&e), (3, 10));
    let e = fed(10, 4, b"\x1b[?45h\x1b[1;9Hab\x08X");
    assert_eq!(row(&e, 1, 10), "........aX");
    let e = fed(10, 4, b"\x1b[?45h\x1b[?7l\x1b[3;1H\x08");
    assert_eq!(cursor(&e), (3, 1), "not without autowrap");
}

#[test]
fn lnm_makes_every_line_feed_a_new_line() {
    let e = fed(10, 4, b"\x1b[20habc\ndef");
    assert_eq!(grid(&e, 0..2, 4), ["abc.", "def."]);
}

#[test]
fn decaln_resets_the_margins_and_homes_the_cursor() {
    let mut e = fed(4, 3, b"\x1b[2;3r\x1b[?69h\x1b[2;3s\x1b[3;3H\x1b#8");
    assert_eq!(cursor(&e), (1, 1));
    assert_eq!(grid(&e, 0..3, 4), ["EEEE", "EEEE", "EEEE"]);
    assert_eq!(reply(&mut e, b"\x1bP$qr\x1b\\"), "\x1bP1$r1;3r\x1b\\");
}

#[test]
fn decrc_restores_origin_mode_as_it_was_saved() {
    // DECSC saves origin mode with the cursor (DEC STD 070).
    let mut e = fed(10, 6, b"\x1b[3;5r\x1b7\x1b[?6h\x1b8");
    assert_eq!(reply(&mut e, b"\x1b[?6$p"), "\x1b[?6;2$y");
}

#[test]
fn ed_1_on_the_second_row_erases_the_first() {
    // ED 1 erases from the screen's start to the cursor, whatever row the cursor is on.
    let e = fed(5, 3, b"abcde\r\nfghij\r\nklmno\x1b[2;3H\x1b[1J");
    assert_eq!(grid(&e, 0..3, 5), [".....", "...ij", "klmno"]);
}

/// DECRQM's answer for DEC private mode `mode` (`Ps`: 1 set, 2 reset, 4 permanently reset).
fn dec_mode(e: &mut Emulator, mode: u16) -> String {
    reply(e, format!("\x1b[?{mode}$p").as_bytes())
}

#[test]
fn decrqm_reports_the_modes_a_program_sets_and_resets() {
    // xterm's DECRQM: KAM (2) and SRM (12, set at power-up) among the ANSI modes; DECSCLM,
    // DECSCNM, DECPFF, DECPEX, 35, 40, 41, DECNRCM, DECBKM among the private ones, each as the
    // program left it; DECHCCM (60) and DECARM (8) permanently reset.
    let mut e = fed(10, 4, b"");
    assert_eq!(reply(&mut e, b"\x1b[2$p\x1b[12$p"), "\x1b[2;2$y\x1b[12;1$y");
    e.advance(b"\x1b[2h\x1b[12l");
    assert_eq!(reply(&mut e, b"\x1b[2$p\x1b[12$p"), "\x1b[2;1$y\x1b[12;2$y");
    for mode in [4, 5, 18, 19, 35, 40, 41, 42, 67] {
        assert_eq!(dec_mode(&mut e, mode), format!("\x1b[?{mode};2$y"));
        e.advance(format!("\x1b[?{mode}h").as_bytes());
        assert_eq!(dec_mode(&mut e, mode), format!("\x1b[?{mode};1$y"));
        e.advance(format!("\x1b[?{mode}l").as_bytes());
        assert_eq!(dec_mode(&mut e, mode), format!("\x1b[?{mode};2$y"));
    }
    assert_eq!(dec_mode(&mut e, 60), "\x1b[?60;4$y");
    assert_eq!(dec_mode(&mut e, 8), "\x1b[?8;4$y");
    // A reset (RIS) brings every mode back to its power-up state.
    e.advance(b"\x1b[2h\x1b[?5h\x1bc");
    assert_eq!(reply(&mut e, b"\x1b[2$p\x1b[?5$p"), "\x1b[2;2$y\x1b[?5;2$y");
}

#[test]
fn reverse_video_swaps_the_default_colours_of_the_picture() {
    // DECSCNM (DEC private mode 5): the screen in reverse video, shown in the snapshot's modes
    // and drawn with the theme's foreground and background swapped.
    let e = fed(4, 2, b"\x1b[?5hab");
    let screen = e.snapshot();
    assert!(screen.modes.reverse_video);
    let appearance = console2svg::render::Appearance::default();
    let palette = appearance.palette(&[]);
    let fonts = console2svg::render::fonts::Fonts::bundled_only();
    let svg = console2svg::render::render_svg(&screen, &appearance, &fonts);
    let bg_rule = format!(".bg{{fill:{}}}", palette.foreground.to_hex());
    assert!(svg.contains(&bg_rule), "reverse video background: {svg}");
    assert!(
        !fed(4, 2, b"\x1b[?5h\x1b[?5l")
            .snapshot()
            .modes
            .reverse_video
    );
}

#[test]
fn deccolm_acts_only_when_mode_40_allows_it_and_keeps_the_width() {
    // xterm: without mode 40, DECCOLM is ignored (nothing cleared); with it, the screen is
    // cleared, the margins reset and the cursor homed, and the mode is reported; the width
    // stays the session's. DECNCSM (95) keeps the screen.
    let mut e = fed(10, 4, b"abc\x1b[2;3r\x1b[?3h");
    assert_eq!(row(&e, 1, 3), "abc");
    assert_eq!(dec_mode(&mut e, 3), "\x1b[?3;2$y");
    e.advance(b"\x1b[?40h\x1b[3;3H\x1b[?3h");
    assert_eq!(row(&e, 1, 3), "...");
    assert_eq!(cursor(&e), (1, 1));
    assert_eq!(dec_mode(&mut e, 3), "\x1b[?3;1$y");
    assert_eq!(reply(&mut e, b"\x1bP$qr\x1b\\"), "\x1bP1$r1;4r\x1b\\");
    assert_eq!(e.cols(), 10);
    e.advance(b"xyz\x1b[?95h\x1b[?3l");
    assert_eq!(row(&e, 1, 3), "xyz");
    assert_eq!(dec_mode(&mut e, 3), "\x1b[?3;2$y");
}

#[test]
fn alternate_screen_47_keeps_its_contents_and_1047_clears_them() {
    // xterm: 47 and 1047 switch screens with the cursor where it is; leaving with 47 keeps the
    // alternate screen's contents for the next visit, leaving with 1047 clears them.
    let mut e = fed(6, 3, b"abc\r\nabc");
    e.advance(b"\x1b[?47h");
    assert_eq!(cursor(&e), (2, 4));
    assert_eq!(grid(&e, 0..2, 3), ["...", "..."]);
    assert!(e.snapshot().modes.alternate_screen);
    e.advance(b"\x1b[2;1Hdef\r\ndef");
    e.advance(b"\x1b[?47l");
    assert_eq!(cursor(&e), (3, 4));
    assert_eq!(grid(&e, 0..3, 3), ["abc", "abc", "..."]);
    assert_eq!(dec_mode(&mut e, 47), "\x1b[?47;2$y");
    e.advance(b"\x1b[?47h");
    assert_eq!(grid(&e, 0..3, 3), ["...", "def", "def"]);
    assert_eq!(dec_mode(&mut e, 1047), "\x1b[?1047;1$y");
    e.advance(b"\x1b[?1047l\x1b[?1047h");
    assert_eq!(grid(&e, 0..3, 3), ["...", "...", "..."]);
}

#[test]
fn each_screen_keeps_its_own_saved_cursor() {
    // xterm keeps a saved cursor (DECSC) for the primary screen and one for the alternate.
    let mut e = fed(
        10,
        8,
        b"\x1b[3;2H\x1b7\x1b[?47h\x1b[7;6H\x1b7\x1b[?47l\x1b8",
    );
    assert_eq!(cursor(&e), (3, 2));
    e.advance(b"\x1b[?47h\x1b8");
    assert_eq!(cursor(&e), (7, 6));
}

#[test]
fn xtsave_and_xtrestore_dec_private_modes() {
    // xterm's XTSAVE (`CSI ? Pm s`) and XTRESTORE (`CSI ? Pm r`): each mode back as saved.
    let mut e = fed(10, 4, b"\x1b[?7h\x1b[?5h\x1b[?7;5s\x1b[?7l\x1b[?5l");
    assert_eq!(dec_mode(&mut e, 7), "\x1b[?7;2$y");
    e.advance(b"\x1b[?7;5r");
    assert_eq!(dec_mode(&mut e, 7), "\x1b[?7;1$y");
    assert_eq!(dec_mode(&mut e, 5), "\x1b[?5;1$y");
    // A reset mode comes back reset; a mode never saved stays as it is.
    e.advance(b"\x1b[?1l\x1b[?1s\x1b[?1h\x1b[?25l\x1b[?1;25r");
    assert_eq!(dec_mode(&mut e, 1), "\x1b[?1;2$y");
    assert_eq!(dec_mode(&mut e, 25), "\x1b[?25;2$y");
    // `CSI ? Pm s` is never SCOSC: the cursor is not saved.
    e.advance(b"\x1b[2;2H\x1b[?7s\x1b[4;4H\x1b[u");
    assert_eq!(cursor(&e), (1, 1));
}

#[test]
fn device_attributes_follow_the_level_a_program_selects() {
    // Before any DECSCL: the VT220 answers. DECSCL 61–65 selects a level (after a soft reset):
    // DA1 and DA2 then answer as xterm at that level, DECRQSS reports it, and the functions
    // above it are refused: DECRQM below 3, DECSLRM below 4, DECNCSM below 5.
    let mut e = fed(10, 8, b"");
    assert_eq!(reply(&mut e, b"\x1b[c"), "\x1b[?62;22c");
    e.advance(b"\x1b[65;1\"p");
    assert_eq!(
        reply(&mut e, b"\x1b[0c"),
        "\x1b[?65;1;2;6;9;15;16;17;18;21;22;28;29c"
    );
    assert_eq!(reply(&mut e, b"\x1b[>c"), "\x1b[>64;380;0c");
    assert_eq!(reply(&mut e, b"\x1bP$q\"p\x1b\\"), "\x1bP1$r65;1\"p\x1b\\");
    assert_eq!(reply(&mut e, b"\x1b[?95h\x1b[?95$p"), "\x1b[?95;1$y");
    // The DEC status reports follow: DECXCPR gives the page, the keyboard its state and type.
    assert_eq!(reply(&mut e, b"\x1b[2;3H\x1b[?6n"), "\x1b[?2;3;1R");
    assert_eq!(reply(&mut e, b"\x1b[?26n"), "\x1b[?27;1;0;0n");
    e.advance(b"\x1b[64;1\"p");
    assert_eq!(reply(&mut e, b"\x1b[>0c"), "\x1b[>41;380;0c");
    assert_eq!(reply(&mut e, b"\x1b[?95$p"), "\x1b[?95;0$y");
    e.advance(b"\x1b[63;1\"p\x1b[?69h\x1b[5;6s\x1b[5;1Habc");
    assert_eq!(cursor(&e), (5, 4), "no left and right margins at level 3");
    assert_eq!(reply(&mut e, b"\x1b[4$p"), "\x1b[4;2$y");
    e.advance(b"\x1b[62;1\"p");
    assert_eq!(
        reply(&mut e, b"\x1b[4$p\x1b[?7$p\x1b[?2026$p"),
        "",
        "no DECRQM at level 2 (synchronized output's included)"
    );
    assert_eq!(reply(&mut e, b"\x1b[c"), "\x1b[?62;1;2;6;9;15;22;29c");
    // Levels outside 61–65 are ignored; a reset (RIS) forgets the selection.
    e.advance(b"\x1b[66;1\"p");
    assert_eq!(reply(&mut e, b"\x1bP$q\"p\x1b\\"), "\x1bP1$r62;1\"p\x1b\\");
    e.advance(b"\x1bc");
    assert_eq!(reply(&mut e, b"\x1b[c"), "\x1b[?62;22c");
}

#[test]
fn window_state_and_position_are_kept_and_reported() {
    // xterm's window operations 1/2 (de-iconify, iconify) and 3 (move to x ; y, absent ones
    // 0) are reported back by 11 and 13; 15 and 16 give the screen's and a cell's size in
    // pixels; a resize request leaves the size as it is.
    let mut e = fed(12, 4, b"\x1b[2t");
    assert_eq!(reply(&mut e, b"\x1b[11t"), "\x1b[2t");
    assert_eq!(reply(&mut e, b"\x1b[1t\x1b[11t"), "\x1b[1t");
    assert_eq!(reply(&mut e, b"\x1b[3;7;9t\x1b[13t"), "\x1b[3;7;9t");
    assert_eq!(reply(&mut e, b"\x1b[3;5t\x1b[13t"), "\x1b[3;5;0t");
    assert_eq!(
        reply(&mut e, b"\x1b[14t\x1b[15t"),
        "\x1b[4;72;96t\x1b[5;72;96t"
    );
    assert_eq!(reply(&mut e, b"\x1b[16t"), "\x1b[6;18;8t");
    assert_eq!(
        reply(&mut e, b"\x1b[8;10;90t\x1b[30t\x1b[18t"),
        "\x1b[8;4;12t"
    );
}

#[test]
fn decrqss_reports_page_and_status_line_settings() {
    // DECSLPP and DECSNLS: the screen's rows; DECSACE as set; DECSASD and DECSSDT: the main
    // display, no status line.
    let mut e = fed(10, 6, b"\x1b[2*x");
    assert_eq!(reply(&mut e, b"\x1bP$qt\x1b\\"), "\x1bP1$r6t\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q*|\x1b\\"), "\x1bP1$r6*|\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q*x\x1b\\"), "\x1bP1$r2*x\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q$}\x1b\\"), "\x1bP1$r0$}\x1b\\");
    assert_eq!(reply(&mut e, b"\x1bP$q$~\x1b\\"), "\x1bP1$r0$~\x1b\\");
}

#[test]
fn mode_41_wraps_before_a_tab_after_the_last_column() {
    // xterm's "more(1) fix": with mode 41, a tab right after a character written in the last
    // column goes to the next line's first tab stop; without it the tab leaves the cursor
    // (and its pending wrap) as it is.
    let e = fed(10, 4, b"\x1b[?41h0123456789\tX");
    assert_eq!(row(&e, 2, 10), "........X.");
    let e = fed(10, 4, b"0123456789\t");
    assert_eq!(cursor(&e), (1, 10));
    let e = fed(10, 4, b"0123456789\tX");
    assert_eq!(grid(&e, 0..2, 10), ["0123456789", "X........."]);
}

// Colour controls (xterm's ctlseqs, "Operating System Commands": OSC 4, 5, 10–19, 104, 105,
// 110–119) with X11 colour specs (Xlib's XParseColor): each answer is `rgb:RRRR/GGGG/BBBB`,
// each channel the 8 bits a TrueColor screen keeps, repeated, ended as the query was.

/// The colour OSC `code` with `index` (or none, for the dynamic colours) has now.
fn colour(e: &mut Emulator, code: &str) -> String {
    reply(e, format!("\x1b]{code};?\x1b\\").as_bytes())
}

#[test]
fn osc_4_sets_and_reports_palette_entries_in_every_x11_form() {
    let mut e = fed(10, 2, b"");
    for (spec, want) in [
        ("rgb:f0f0/f0f0/f0f0", "f0f0/f0f0/f0f0"),
        ("rgb:8/80/800", "8888/8080/8080"),
        ("#fff", "f0f0/f0f0/f0f0"),
        ("#800080008000", "8080/8080/8080"),
        // The device-independent forms and `rgbi:` follow sRGB (IEC 61966-2-1: D65 white,
        // its matrix and transfer function, clipped to the gamut), not the default Tektronix
        // screen of Xlib's colour management that xterm converts through: a deliberate
        // difference, so these answers are not xterm's (its are in the comments).
        ("rgbi:0.5/0.5/0.5", "bcbc/bcbc/bcbc"), // xterm: c1c1/bbbb/bbbb
        ("CIEXYZ:0.5/0.5/0.5", "cccc/b7b7/b4b4"), // xterm: dddd/b5b5/a0a0
        ("CIEuvY:0.5/0.5/0.5", "ffff/0000/5656"), // xterm: ffff/a3a3/aeae
        ("CIExyY:0.5/0.5/0.5", "eeee/b3b3/0000"), // xterm: f7f7/b3b3/0e0e
        ("CIELab:50/0/0", "7777/7777/7777"),    // L* 50 is sRGB's mid grey
        ("CIELab:1/1/1", "0707/0303/0101"),     // xterm: 6c6c/6767/6767
        ("CIELuv:0.5/0.5/0.5", "0404/0101/0000"), // xterm: 0e0e/1313/0e0e
    ] {
        e.advance(format!("\x1b]4;3;{spec}\x07").as_bytes());
        assert_eq!(
            colour(&mut e, "4;3"),
            format!("\x1b]4;3;rgb:{want}\x1b\\"),
            "{spec}"
        );
    }
    // Several pairs at once; the answers come in order, ended with BEL for a BEL query.
    e.advance(b"\x1b]4;0;#102030;1;rgb:ff/0/0\x1b\\");
    assert_eq!(
        reply(&mut e, b"\x1b]4;0;?;1;?\x07"),
        "\x1b]4;0;rgb:1010/2020/3030\x07\x1b]4;1;rgb:ffff/0000/0000\x07"
    );
    // A spec that is no colour leaves the entry as it was; TekHVC (a proprietary space with
    // no published standard) is not understood.
    e.advance(b"\x1b]4;0;no-such-colour\x07\x1b]4;0;rgb:1/2\x07\x1b]4;0;TekHVC:1/1/1\x07");
    assert_eq!(colour(&mut e, "4;0"), "\x1b]4;0;rgb:1010/2020/3030\x1b\\");
}

#[test]
fn osc_104_resets_palette_entries_to_the_theme() {
    let mut e = fed(10, 2, b"");
    let first = colour(&mut e, "4;1");
    let third = colour(&mut e, "4;3");
    e.advance(b"\x1b]4;1;#aabbcc;3;#aabbcc\x07\x1b]104;1\x07");
    assert_eq!(colour(&mut e, "4;1"), first);
    assert_ne!(colour(&mut e, "4;3"), third);
    e.advance(b"\x1b]104\x07");
    assert_eq!(colour(&mut e, "4;3"), third);
}

#[test]
fn dynamic_colours_take_a_spec_each_from_their_code_on() {
    let mut e = fed(10, 2, b"");
    let background = colour(&mut e, "11");
    e.advance(b"\x1b]10;rgb:f0f0/f0f0/f0f0;CIEXYZ:0.5/0.5/0.5\x07");
    assert_eq!(
        reply(&mut e, b"\x1b]10;?;?\x1b\\"),
        "\x1b]10;rgb:f0f0/f0f0/f0f0\x1b\\\x1b]11;rgb:cccc/b7b7/b4b4\x1b\\"
    );
    // Pointer, Tektronix and highlight colours (13–19) are kept too; 110–119 reset them.
    e.advance(b"\x1b]17;#123456\x07");
    assert_eq!(colour(&mut e, "17"), "\x1b]17;rgb:1212/3434/5656\x1b\\");
    e.advance(b"\x1b]111\x07\x1b]117\x07");
    assert_eq!(colour(&mut e, "11"), background);
    assert_ne!(colour(&mut e, "17"), "\x1b]17;rgb:1212/3434/5656\x1b\\");
}

#[test]
fn special_colours_are_osc_5_and_osc_4_past_the_palette_and_osc_105_resets_them() {
    let mut e = fed(10, 2, b"");
    // XTGETTCAP "Co": 256 palette entries, so special colour n is OSC 4 index 256 + n.
    assert_eq!(
        reply(&mut e, b"\x1bP+q436F\x1b\\"),
        "\x1bP1+r436F=323536\x1b\\"
    );
    let original = colour(&mut e, "5;0");
    let foreground = colour(&mut e, "10");
    e.advance(b"\x1b]5;0;#aaaabbbbcccc;1;rgb:dd/ee/ff\x07");
    assert_eq!(
        reply(&mut e, b"\x1b]5;0;?;1;?\x07"),
        "\x1b]5;0;rgb:aaaa/bbbb/cccc\x07\x1b]5;1;rgb:dddd/eeee/ffff\x07"
    );
    assert_eq!(
        colour(&mut e, "4;256"),
        "\x1b]4;256;rgb:aaaa/bbbb/cccc\x1b\\"
    );
    // The palette and the foreground are not touched.
    assert_eq!(colour(&mut e, "10"), foreground);
    e.advance(b"\x1b]105;0\x07");
    assert_eq!(colour(&mut e, "5;0"), original);
    assert_eq!(colour(&mut e, "5;1"), "\x1b]5;1;rgb:dddd/eeee/ffff\x1b\\");
    e.advance(b"\x1b]4;260;#010203\x07\x1b]105\x07");
    assert_eq!(colour(&mut e, "4;260"), original.replace("5;0", "4;260"));
    // OSC 104 without parameters resets them with the palette, as xterm's does.
    e.advance(b"\x1b]5;3;#010203\x07\x1b]104\x07");
    assert_eq!(colour(&mut e, "5;3"), original.replace("5;0", "5;3"));
    // A reset (RIS) brings them all back.
    e.advance(b"\x1b]5;2;#010203\x07\x1bc");
    assert_eq!(colour(&mut e, "5;2"), original.replace("5;0", "5;2"));
}

#[test]
fn xtgettcap_answers_what_it_knows_and_refuses_the_rest() {
    let mut e = fed(10, 2, b"");
    // "colors" and "TN", together; an unknown name fails the request.
    assert_eq!(
        reply(&mut e, b"\x1bP+q636F6C6F7273;544E\x1b\\"),
        "\x1bP1+r636F6C6F7273=323536;544E=787465726D2D323536636F6C6F72\x1b\\"
    );
    assert_eq!(reply(&mut e, b"\x1bP+q6B6279\x1b\\"), "\x1bP0+r\x1b\\");
}

#[test]
fn a_character_split_between_reads_is_laid_out_as_if_read_whole() {
    // `é` (C3 A9) split after its first byte, then a tab and another character: the tab
    // must still move to the next stop, wherever the reads split the bytes.
    let bytes = "\t中✓é\t中✓é\r\nx".as_bytes();
    let whole = fed(26, 3, bytes);
    let want = grid(&whole, 0..2, 26);
    // Blanks and the wide character's second cell show as `.`.
    assert_eq!(want[0].trim_end_matches('.'), "........中.✓é....中.✓é");
    for cut in 1..bytes.len() {
        let mut e = fed(26, 3, &bytes[..cut]);
        e.advance(&bytes[cut..]);
        assert_eq!(grid(&e, 0..2, 26), want, "split at byte {cut}");
        assert_eq!(cursor(&e), cursor(&whole), "split at byte {cut}");
    }
    // Byte by byte, too.
    let mut e = fed(26, 3, b"");
    for b in bytes {
        e.advance(std::slice::from_ref(b));
    }
    assert_eq!(grid(&e, 0..2, 26), want);
}

/// DA3 (`CSI = c`, VT400 and up) answers DECRPTUI with xterm's unit id, eight zeros
/// (ctlseqs, "CSI = Ps c"); another parameter or a marker is not DA3.
#[test]
fn da3_reports_the_unit_id() {
    let mut e = fed(20, 3, b"");
    assert_eq!(reply(&mut e, b"\x1b[=c"), "\x1bP!|00000000\x1b\\");
    assert_eq!(reply(&mut e, b"\x1b[=0c"), "\x1bP!|00000000\x1b\\");
    assert_eq!(reply(&mut e, b"\x1b[=1c"), "");
}
