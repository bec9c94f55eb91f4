//! Emulator ingest benchmark: a generated 50 MB log of coloured lines (about one in five with
//! CJK text) fed to a 200×50 emulator in 64 KiB chunks, as the PTY reader delivers it.
//!
//! Target (issue): ≥ 100 MB/s.
//!
//! Run with `cargo bench --bench ingest`.

use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

use console2svg::term::Emulator;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const TARGET_BYTES: usize = 50 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// Deterministic coloured log lines until the buffer holds about [`TARGET_BYTES`].
fn log() -> Vec<u8> {
    const LEVELS: [&str; 5] = [
        "\x1b[32mINFO \x1b[0m",
        "\x1b[1;33mWARN \x1b[0m",
        "\x1b[1;31mERROR\x1b[0m",
        "\x1b[2;37mDEBUG\x1b[0m",
        "\x1b[36mTRACE\x1b[0m",
    ];
    const MODULES: [&str; 4] = ["http::server", "db::pool", "cache", "worker::queue"];
    const CJK: [&str; 3] = [
        "中文日志消息：连接已建立",
        "请求处理完成，耗时正常",
        "警告：缓存命中率下降",
    ];
    let mut s = String::with_capacity(TARGET_BYTES + 1024);
    let mut n: u64 = 0;
    while s.len() < TARGET_BYTES {
        let ms = n * 37;
        let _ = write!(
            s,
            "\x1b[90m2025-01-01T{:02}:{:02}:{:02}.{:03}Z\x1b[0m {} \x1b[38;5;{}m{:<14}\x1b[0m ",
            (ms / 3_600_000) % 24,
            (ms / 60_000) % 60,
            (ms / 1000) % 60,
            ms % 1000,
            LEVELS[(n % 7 % 5) as usize],
            17 + (n * 11) % 214,
            MODULES[(n % 4) as usize],
        );
        if n % 5 == 2 {
            let _ = write!(s, "{} id={n}", CJK[(n % 3) as usize]);
        } else {
            let _ = write!(
                s,
                "request \x1b[38;2;{};{};{}m#{n:08x}\x1b[0m served in \x1b[1m{}.{:03}\x1b[0m ms \
                 from 10.0.{}.{} bytes={}",
                100 + (n * 7) % 156,
                100 + (n * 13) % 156,
                100 + (n * 29) % 156,
                n % 250,
                (n * 7919) % 1000,
                (n / 256) % 256,
                n % 256,
                (n * 104_729) % 1_000_000,
            );
        }
        s.push_str("\r\n");
        n += 1;
    }
    s.into_bytes()
}

fn bench_ingest(c: &mut Criterion) {
    let data = log();
    eprintln!(
        "ingest: {} bytes ({:.1} MiB) of log lines",
        data.len(),
        data.len() as f64 / (1024.0 * 1024.0)
    );

    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("log_50MB_200x50", |b| {
        b.iter(|| {
            let mut emu = Emulator::new(200, 50);
            for chunk in data.chunks(CHUNK) {
                emu.advance(black_box(chunk));
            }
            black_box(emu.rows())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_ingest);
criterion_main!(benches);
