//! Render benchmark: a 200×50 screen of mixed styles to SVG, without and with embedded fonts,
//! in outlines mode, and to PNG.
//!
//! Targets (issues): ≤ 2 ms without font embedding, ≤ 5 ms with it; PNG ≤ 50 ms; outlines no
//! more than 3× the bytes of text with embedded fonts (the sizes are printed before the runs);
//! text with an `x` on every glyph no more than 1.15× the bytes of one `x` list per row (measured
//! when it came: 249 820 against 224 544 with embedded fonts, 231 871 against 206 595 without).
//!
//! Run with `cargo bench --bench render`.

use std::fmt::Write;
use std::hint::black_box;

use console2svg::output::Format;
use console2svg::render::{fonts::Fonts, render_for_raster, render_svg, Appearance, TextMode};
use console2svg::term::{Emulator, Screen};
use criterion::{criterion_group, criterion_main, Criterion};

const COLS: usize = 200;
const ROWS: usize = 50;

/// Deterministic terminal output that fills all 50 rows of a 200-column terminal with a mix of
/// every style the renderer handles: 16, 256 and truecolor foregrounds and backgrounds, bold,
/// dim, italic, inverse, strikeout, the underline styles (single, double, curly, dotted, dashed,
/// coloured), CJK, box drawing, block elements and a hyperlink.
fn mixed_output() -> Vec<u8> {
    let mut s = String::new();
    // Row 0: box drawing top border.
    s.push_str("\x1b[36m┌");
    s.push_str(&"─".repeat(COLS - 2));
    s.push_str("┐\x1b[0m\r\n");
    for row in 1..ROWS - 1 {
        let mut col = 0;
        s.push_str("\x1b[36m│\x1b[0m");
        col += 1;
        let mut i = row;
        // Fill the row with styled segments until it is (nearly) full.
        while col < COLS - 12 {
            let seg: (String, usize) = match i % 12 {
                0 => (format!("\x1b[1;3{}mbold{:02}\x1b[0m ", i % 8, i % 100), 7),
                1 => (format!("\x1b[2;9{}mdim{:03}\x1b[0m ", i % 8, i % 1000), 7),
                2 => (format!("\x1b[3;38;5;{}mitalic\x1b[0m ", (i * 7) % 256), 7),
                3 => (
                    format!(
                        "\x1b[38;2;{};{};{}m\x1b[48;2;{};{};{}mtruecol\x1b[0m ",
                        (i * 37) % 256,
                        (i * 91) % 256,
                        (i * 53) % 256,
                        (i * 13) % 64,
                        (i * 29) % 64,
                        (i * 41) % 64
                    ),
                    8,
                ),
                4 => (format!("\x1b[4:{}mundr\x1b[0m ", 1 + i % 5), 5),
                5 => (
                    format!("\x1b[4;58;2;255;{};0mucolor\x1b[0m ", (i * 17) % 256),
                    7,
                ),
                6 => ("\x1b[7minverse\x1b[0m ".to_string(), 8),
                7 => ("\x1b[32m中文日志\x1b[0m ".to_string(), 9),
                8 => (format!("\x1b[48;5;{}m bg256 \x1b[0m ", (i * 11) % 256), 8),
                9 => ("\x1b[9mstrike\x1b[0m ".to_string(), 7),
                10 => (
                    "\x1b]8;;https://example.com/docs\x1b\\\x1b[34;4mlink\x1b[0m\x1b]8;;\x1b\\ "
                        .to_string(),
                    5,
                ),
                _ => ("\x1b[33m█▓▒░├┼┤\x1b[0m ".to_string(), 8),
            };
            s.push_str(&seg.0);
            col += seg.1;
            i += 1;
        }
        // Pad to the right border.
        let _ = write!(s, "{:width$}", "", width = COLS - 1 - col);
        s.push_str("\x1b[36m│\x1b[0m");
        s.push_str("\r\n");
    }
    s.push_str("\x1b[36m└");
    s.push_str(&"─".repeat(COLS - 2));
    s.push_str("┘\x1b[0m");
    s.into_bytes()
}

fn screen() -> Screen {
    let mut emu = Emulator::new(COLS, ROWS);
    emu.advance(&mixed_output());
    let screen = emu.snapshot();
    // Every row is full: the border frames the whole screen, nothing wrapped or scrolled.
    assert_eq!(screen.rows.len(), ROWS);
    assert!(screen.row_text(0).starts_with('┌'));
    assert!(screen.row_text(ROWS - 1).starts_with('└'));
    for row in 1..ROWS - 1 {
        let text = screen.row_text(row);
        assert!(
            text.starts_with('│') && text.ends_with('│'),
            "row {row}: {text}"
        );
    }
    screen
}

fn bench_render(c: &mut Criterion) {
    let screen = screen();
    let fonts = Fonts::new();
    let no_embed = Appearance {
        embed_fonts: false,
        ..Appearance::default()
    };
    let embed = Appearance::default();
    let outlines = Appearance {
        text_mode: TextMode::Outlines,
        ..Appearance::default()
    };

    // Warm the font caches (including the CJK system-font fallback) and report the sizes.
    let mut sizes = Vec::new();
    for (name, appearance) in [
        ("no_embed", &no_embed),
        ("embed", &embed),
        ("outlines", &outlines),
    ] {
        let svg = render_svg(&screen, appearance, &fonts);
        eprintln!("render_200x50/{name}: SVG is {} bytes", svg.len());
        sizes.push(svg.len());
    }
    eprintln!(
        "render_200x50: outlines are {:.2}× the bytes of text with embedded fonts",
        sizes[2] as f64 / sizes[1] as f64
    );
    let scene = render_for_raster(&screen, &embed, &fonts);
    eprintln!(
        "render_200x50/png: the rasteriser gets {} bytes of SVG and {} glyph outlines",
        scene.below.len() + scene.above.map_or(0, |a| a.len()),
        scene.ink.len()
    );

    let mut group = c.benchmark_group("render_200x50");
    group.bench_function("no_embed", |b| {
        b.iter(|| render_svg(black_box(&screen), black_box(&no_embed), &fonts))
    });
    group.bench_function("embed", |b| {
        b.iter(|| render_svg(black_box(&screen), black_box(&embed), &fonts))
    });
    group.bench_function("outlines", |b| {
        b.iter(|| render_svg(black_box(&screen), black_box(&outlines), &fonts))
    });
    // The whole PNG path of `-o x.png`: render (outlines, no text layer), rasterise with resvg
    // at scale 1, encode (target ≤ 50 ms).
    let png = Format::Png.render(&screen, &embed, &fonts, 1.0).unwrap();
    eprintln!("render_200x50/png: PNG is {} bytes", png.len());
    group.bench_function("png", |b| {
        b.iter(|| Format::Png.render(black_box(&screen), black_box(&embed), &fonts, 1.0))
    });
    group.finish();
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
