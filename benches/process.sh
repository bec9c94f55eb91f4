#!/usr/bin/env bash
# Whole-process wall time of `console2svg -o x.svg -- true` (target: median ≤ 30 ms).
#
# Usage: bash benches/process.sh [RUNS]      (or RUNS=100 bash benches/process.sh)
#
# Builds the release binary if needed, warms up, runs it RUNS times (default 50) and prints the
# median and p90 in ms. Uses hyperfine when installed, else a loop timed with `date +%s%N`.
set -euo pipefail

runs="${1:-${RUNS:-50}}"
warmup="${WARMUP:-5}"
cd "$(dirname "$0")/.."

bin="${CARGO_TARGET_DIR:-target}/release/console2svg"
echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
[[ -x "$bin" ]] || { echo "error: $bin not found after the build" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One checked run first: a failure here must not be timed as a fast run.
"$bin" -o "$tmp/x.svg" -- true >/dev/null
[[ -s "$tmp/x.svg" ]] || { echo "error: $bin wrote no SVG" >&2; exit 1; }

# Prints "median p90" in ms for the durations (ms, one a line) on stdin.
stats() {
    sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) exit 1
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            i = int(NR * 0.9 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
            printf "%.2f %.2f\n", m, v[i]
        }'
}

if command -v hyperfine >/dev/null 2>&1; then
    tool="hyperfine"
    hyperfine --style basic --shell=none --warmup "$warmup" --runs "$runs" \
        --export-json "$tmp/h.json" \
        "$bin -o $tmp/x.svg -- true" >&2
    # The "times" array holds every run in seconds; one number a line after the split.
    read -r median p90 < <(
        tr -d ' \n' <"$tmp/h.json" \
            | sed -e 's/.*"times":\[\([^]]*\)\].*/\1/' \
            | tr ',' '\n' \
            | awk '{ printf "%.4f\n", $1 * 1000 }' \
            | stats
    )
else
    tool="date +%s%N loop"
    for ((i = 0; i < warmup; i++)); do
        "$bin" -o "$tmp/x.svg" -- true >/dev/null
    done
    : >"$tmp/times"
    for ((i = 0; i < runs; i++)); do
        t0=$(date +%s%N)
        "$bin" -o "$tmp/x.svg" -- true >/dev/null
        t1=$(date +%s%N)
        echo "$(((t1 - t0) / 1000))" >>"$tmp/times" # µs
    done
    read -r median p90 < <(awk '{ printf "%.3f\n", $1 / 1000 }' "$tmp/times" | stats)
fi

echo "console2svg -o x.svg -- true: $runs runs ($tool): median ${median} ms, p90 ${p90} ms"
