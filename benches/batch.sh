#!/usr/bin/env bash
# `batch markdown` over a generated docs tree: FILES Markdown files (default 200) with
# MARKERS_PER_FILE markers each (default 2, so 400 markers), every marker a trivial command.
# Prints the wall time of the first run (every marker captured) and of the second run (nothing
# changed: nothing may run or be written), and their ratio (target: second ≤ 10 % of first).
#
# Usage: bash benches/batch.sh              (FILES=50 MARKERS_PER_FILE=4 JOBS=2 to change)
#
# Rough figures on a shared machine; the command's own progress output is discarded.
set -euo pipefail

files="${FILES:-200}"
per="${MARKERS_PER_FILE:-2}"
jobs="${JOBS:-}"
cd "$(dirname "$0")/.."

bin="${CARGO_TARGET_DIR:-target}/release/console2svg"
[[ "$bin" = /* ]] || bin="$(pwd)/$bin"
echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
[[ -x "$bin" ]] || { echo "error: $bin not found after the build" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs"
for ((f = 0; f < files; f++)); do
    dir="$tmp/docs/part$((f % 10))"
    mkdir -p "$dir"
    {
        echo "# Page $f"
        for ((m = 0; m < per; m++)); do
            echo
            echo "Step $m of page $f."
            echo
            echo "<!-- c2s:: -w 60 -- echo page $f marker $m -->"
        done
    } >"$dir/page$f.md"
done

now() { date +%s%N; }
args=(batch markdown -i docs -o assets)
[[ -n "$jobs" ]] && args+=(-j "$jobs")

cd "$tmp"
t0=$(now)
"$bin" "${args[@]}" >/dev/null
t1=$(now)
"$bin" "${args[@]}" >"$tmp/second.txt"
t2=$(now)
first=$(( (t1 - t0) / 1000000 ))
second=$(( (t2 - t1) / 1000000 ))
echo "markers: $((files * per)) in $files files"
echo "first run:  ${first} ms"
echo "second run: ${second} ms ($(tail -1 "$tmp/second.txt"))"
awk -v a="$first" -v b="$second" 'BEGIN { printf "ratio: %.1f %%\n", 100 * b / a }'
