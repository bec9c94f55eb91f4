#!/usr/bin/env bash
# Recording benchmark (issue 12), side by side in one run:
#
#   A fixed, generated 60-second asciicast v2 (100×30: a TUI redrawing a progress line at the
#   bottom while a coloured log scrolls above it, ~3 000 events), rendered as an animated SVG by
#
#     ours         console2svg cast gen.cast -v
#     svg-term     svg-term-cli (npm), svg-term --in gen.cast
#     termtosvg    termtosvg (PyPI), termtosvg render gen.cast
#
#   and as GIF by us and, given AGG=<path to an agg binary>, by agg (asciinema's GIF tool; it
#   is on no registry, so build it from its own repository yourself; run at our 12 fps cap).
#   Then the same recording at 10× the events (10× as long) through ours, to show that frame
#   derivation and rendering grow linearly with the events.
#
#   Targets (issue 12): our bytes ≤ 0.5× svg-term's and ≤ 0.7× termtosvg's; our wall time
#   ≤ 0.1× svg-term's.
#
# Usage: bash benches/recording.sh            (AGG=/path/to/agg bash benches/recording.sh)
# Knobs: RUNS (timed runs per tool, median reported; 3), TOOLS ("ours svg-term termtosvg",
# plus "agg" when AGG is set).
#
# Installs svg-term-cli and termtosvg under target/bench-tools/ on first use (npm, pip).
# The machine is shared: treat the figures as rough and compare the columns of one run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS=${RUNS:-3}
TOOLS=${TOOLS:-"ours svg-term termtosvg${AGG:+ agg}"}
target=${CARGO_TARGET_DIR:-target}
tools="$target/bench-tools"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
ours="$target/release/console2svg"

# The recording: deterministic, `scale` times the events over `scale` times the time.
gen() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
scale, out = int(sys.argv[1]), sys.argv[2]
cols, rows = 100, 30
events, t, n = [], 0.0, 0
total = 60.0 * scale
step = total / (3000 * scale)
levels = ["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[36mDEBUG\x1b[0m", "\x1b[31mERROR\x1b[0m"]
with open(out, "w") as f:
    f.write(json.dumps({"version": 2, "width": cols, "height": rows}) + "\n")
    while t < total:
        if n % 2 == 0:
            line = f"\x1b[{rows - 1};1H\x1b[K{levels[n % 4]} worker-{n % 7}: processed batch {n} ({n * 37 % 1000} items)\r\n"
        else:
            pct = int(100 * t / total)
            bar = "#" * (pct * 60 // 100)
            line = f"\x1b[{rows};1H\x1b[K\x1b[1m[{bar:<60}]\x1b[0m {pct:3d}% eta {int(total - t)}s"
        f.write(json.dumps([round(t, 6), "o", line]) + "\n")
        t += step
        n += 1
EOF
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Wall ms of "$@", median of RUNS.
timed() {
    for _ in $(seq "$RUNS"); do
        local s e
        s=$(date +%s%N)
        "$@" >/dev/null 2>&1
        e=$(date +%s%N)
        echo $(((e - s) / 1000000))
    done | median
}

install_tools() {
    if [[ " $TOOLS " == *" svg-term "* && ! -x "$tools/node/node_modules/.bin/svg-term" ]]; then
        mkdir -p "$tools/node"
        npm install --silent --prefix "$tools/node" svg-term-cli@2 >/dev/null
    fi
    if [[ " $TOOLS " == *" termtosvg "* && ! -x "$tools/py/bin/termtosvg" ]]; then
        python3 -m venv "$tools/py"
        "$tools/py/bin/pip" install --quiet --disable-pip-version-check termtosvg==1.1.0
    fi
}
install_tools

gen 1 "$work/gen.cast"
gen 10 "$work/gen10.cast"
echo "recording: $(($(wc -l <"$work/gen.cast") - 1)) events, 60 s, 100×30 (10×: $(($(wc -l <"$work/gen10.cast") - 1)) events)"
echo
printf '%-28s %10s %12s\n' "tool" "wall ms" "bytes"
declare -A ms bytes
run() {
    local name=$1 out=$2
    shift 2
    ms[$name]=$(timed "$@")
    "$@" >/dev/null 2>&1 || true
    bytes[$name]=$(stat -c %s "$out" 2>/dev/null || echo 0)
    printf '%-28s %10s %12s\n' "$name" "${ms[$name]}" "${bytes[$name]}"
}
for tool in $TOOLS; do
    case $tool in
    ours)
        run "ours (animated SVG)" "$work/ours.svg" "$ours" cast "$work/gen.cast" -v -o "$work/ours.svg"
        run "ours (GIF)" "$work/ours.gif" "$ours" cast "$work/gen.cast" -o "$work/ours.gif"
        run "ours 10× (animated SVG)" "$work/ours10.svg" "$ours" cast "$work/gen10.cast" -v -o "$work/ours10.svg"
        ;;
    svg-term)
        run "svg-term-cli" "$work/svgterm.svg" "$tools/node/node_modules/.bin/svg-term" --in "$work/gen.cast" --out "$work/svgterm.svg"
        ;;
    termtosvg)
        run "termtosvg" "$work/termtosvg.svg" "$tools/py/bin/termtosvg" render "$work/gen.cast" "$work/termtosvg.svg"
        ;;
    agg)
        run "agg (GIF)" "$work/agg.gif" "${AGG:?set AGG to an agg binary}" --fps-cap 12 "$work/gen.cast" "$work/agg.gif"
        ;;
    esac
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
o="ours (animated SVG)"
if [[ -n "${bytes[svg-term-cli]:-}" ]]; then
    echo "bytes ours/svg-term:  $(ratio "${bytes[$o]}" "${bytes[svg-term-cli]}")  (target ≤ 0.5)"
    echo "time  ours/svg-term:  $(ratio "${ms[$o]}" "${ms[svg-term-cli]}")  (target ≤ 0.1)"
fi
if [[ -n "${bytes[termtosvg]:-}" ]]; then
    echo "bytes ours/termtosvg: $(ratio "${bytes[$o]}" "${bytes[termtosvg]}")  (target ≤ 0.7)"
fi
if [[ -n "${bytes[agg (GIF)]:-}" && -n "${bytes[ours (GIF)]:-}" ]]; then
    echo "GIF bytes ours/agg:   $(ratio "${bytes[ours (GIF)]}" "${bytes[agg (GIF)]}")"
    echo "GIF time  ours/agg:   $(ratio "${ms[ours (GIF)]}" "${ms[agg (GIF)]}")"
fi
if [[ -n "${ms[ours 10× (animated SVG)]:-}" ]]; then
    echo "time  10×/1×:         $(ratio "${ms[ours 10× (animated SVG)]}" "${ms[$o]}")  (linear: about 10)"
fi
