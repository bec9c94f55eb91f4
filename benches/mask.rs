//! Masking benchmark: a 200×50 screen of log-like text (paths, assignments, e-mail addresses,
//! URLs, a few real-looking secrets, some wrapped rows) masked with every auto rule.
//!
//! Target (issue 13): ≤ 1 ms added per render. The screen is cloned outside the timed part
//! (`iter_batched`), so the figure is the masking alone.
//!
//! Run with `cargo bench --bench mask`.

use std::hint::black_box;

use console2svg::mask::Masker;
use console2svg::term::{Emulator, Screen};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const COLS: usize = 200;
const ROWS: usize = 50;

/// 50 rows of 200 columns: mostly ordinary log lines (which the keyword prefilters let
/// through: `/home/`, `@`, `token`, `key`…), a secret every 7th row, two long rows that wrap.
fn screen() -> Screen {
    let mut s = String::new();
    for row in 0..ROWS - 2 {
        let line = match row % 7 {
            0 => format!(
                "{row:03} INFO deploy token=ghp_{:036} pushed by Ann Lee <ann.lee@example.com> to https://ci:pw{row}@git.example.com/r",
                row
            ),
            1 => format!("{row:03} DEBUG reading /home/builder/project/src/main.rs and /Users/sam/.config/app.toml"),
            2 => format!("{row:03} WARN  retrying request id={row:08x} after 250ms (attempt 2 of 5), cache key miss for user {row}"),
            3 => format!("{row:03} INFO  api_key: [redacted] password_policy=strict secret_rotation=30d sk-not-a-key AKIA-not-a-key"),
            4 => format!("{row:03} TRACE eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl and AKIAIOSFODNN7EXAMPLE"),
            5 => format!("{row:03} INFO  compiled 214 crates in 41.3s; artefacts in target/release; warnings: 0; notes: mail ops@corp.example"),
            _ => format!("{row:03} INFO  GET /api/v1/items?page={row} 200 12ms user-agent=curl/8.5 remote=10.0.{row}.7"),
        };
        s.push_str(&line[..line.len().min(COLS)]);
        s.push_str("\r\n");
    }
    // Two rows' worth of one long line: a token split by the wrap.
    s.push_str(&format!("{}ghp_{}", "x ".repeat(90), "Ab1".repeat(12)));
    let mut e = Emulator::new(COLS, ROWS);
    e.advance(s.as_bytes());
    e.snapshot()
}

fn bench(c: &mut Criterion) {
    let screen = screen();
    let masker = Masker::auto();
    let mut probe = screen.clone();
    let masked = masker.mask_screen(&mut probe);
    eprintln!(
        "mask_200x50: {masked} cells masked by {} rules",
        masker.rules().len()
    );
    c.bench_function("mask_200x50/auto", |b| {
        b.iter_batched(
            || screen.clone(),
            // The screen is returned, so dropping it is not timed either.
            |mut s| {
                black_box(masker.mask_screen(&mut s));
                s
            },
            BatchSize::SmallInput,
        )
    });
    let text = screen.text();
    c.bench_function("mask_200x50/text", |b| {
        b.iter(|| black_box(masker.mask_text(black_box(&text))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
