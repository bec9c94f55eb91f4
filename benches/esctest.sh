#!/usr/bin/env bash
# Terminal conformance (issue 20): runs the esctest2 suite (github ThomasDickey/esctest2, xterm's
# maintainers' automatic tests; GPL-2.0, never part of this repository) inside a console2svg
# session and inside a tmux pane, both 80×25, side by side in one run, and prints the passes per
# test class and in all.
#
# Usage: ESCTEST=/path/to/esctest2 bash benches/esctest.sh
#   ESCTEST   a checkout of esctest2 (the directory holding esctest/esctest.py); required
#   INCLUDE   regex of test names to run (esctest's --include; default: all)
#   TIMEOUT   seconds esctest waits for each report from the terminal (default 0.2)
#   MODES     "ours tmux" (default) or either one
#   LIMIT     seconds a whole run may take before it is stopped (default 1800)
#   BIN       a console2svg binary to measure instead of building the release one
#   LOGS      a directory to keep each terminal's esctest log in (<mode>.log), to read the failures
#
# The suite runs as `esctest.py --expected-terminal xterm --max-vt-level 5 --timeout $TIMEOUT`;
# its log (one "Run test: <Class>.<test>" line, then "Passed." or "*** TEST … FAILED", per test)
# is what is counted. "Fails as expected" (esctest's known xterm bugs) and "Skipped" count as
# neither. Uses the release binary, a private runtime directory (its own host) and a private
# tmux socket; both are stopped on exit.
set -euo pipefail

suite="${ESCTEST:?set ESCTEST to an esctest2 checkout}"
include="${INCLUDE:-.*}"
timeout="${TIMEOUT:-0.2}"
modes="${MODES:-ours tmux}"
limit="${LIMIT:-1800}"

script="$suite/esctest/esctest.py"
[[ -f "$script" ]] || { echo "error: $script not found (ESCTEST must be an esctest2 checkout)" >&2; exit 1; }
for tool in python3 tmux; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

cd "$(dirname "$0")/.."
if [[ -n "${BIN:-}" ]]; then
    bin="$(realpath "$BIN")"
else
    echo "building release binary (cargo build --release)…" >&2
    cargo build --release --quiet
    target_dir="${CARGO_TARGET_DIR:-target}"
    [[ "$target_dir" == /* ]] || target_dir="$PWD/$target_dir"
    bin="$target_dir/release/console2svg"
fi

tmp="$(mktemp -d /tmp/c2s-esctest.XXXXXX)"
export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt"
tmux_socket="$tmp/tmux.sock"
cleanup() {
    "$bin" session stop --all --yes >/dev/null 2>&1 || true
    tmux -S "$tmux_socket" kill-server >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# The command each terminal runs: the suite, then a marker line once it has finished.
run_line() {
    local log="$1"
    printf 'cd %q && python3 esctest.py --expected-terminal xterm --max-vt-level 5 --timeout %s --include %q --logfile %q --no-print-logs; echo; echo ESCTEST-DONE' \
        "$suite/esctest" "$timeout" "$include" "$log"
}

wait_for_log_end() {
    local log="$1" started=$SECONDS
    while ! grep -q '^\*\*\* .* passed' "$log" 2>/dev/null; do
        if ((SECONDS - started > limit)); then
            echo "   stopped after ${limit} s" >&2
            return 1
        fi
        sleep 1
    done
}

for mode in $modes; do
    log="$tmp/$mode.log"
    started=$SECONDS
    case "$mode" in
    ours)
        echo "== esctest2 in a console2svg session (80×25)…" >&2
        "$bin" session start --width 80 --height 25 -- sh -c "$(run_line "$log")" >/dev/null
        ;;
    tmux)
        echo "== esctest2 in a tmux pane (80×25)…" >&2
        tmux -S "$tmux_socket" -f /dev/null new-session -d -x 80 -y 25 "sh -c '$(run_line "$log" | sed "s/'/'\\\\''/g")'"
        ;;
    *)
        echo "error: unknown mode $mode" >&2
        exit 1
        ;;
    esac
    wait_for_log_end "$log" || true
    echo "   $((SECONDS - started)) s" >&2
    cp "$log" "$tmp/$mode.done" 2>/dev/null || touch "$tmp/$mode.done"
    if [[ -n "${LOGS:-}" ]]; then
        mkdir -p "$LOGS" && cp "$tmp/$mode.done" "$LOGS/$mode.log"
    fi
done

python3 - "$tmp" $modes <<'PY'
import collections, re, sys
tmp, modes = sys.argv[1], sys.argv[2:]
results = {}
for mode in modes:
    per = collections.defaultdict(lambda: [0, 0])  # class -> [passed, failed]
    current = None
    try:
        lines = open(f"{tmp}/{mode}.done", errors="replace").read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        m = re.search(r"Run test: (\S+)", line)
        if m:
            current = m.group(1)
            continue
        if current is None:
            continue
        cls = current.split(".")[0]
        if line.rstrip().endswith("Passed."):
            per[cls][0] += 1
            current = None
        elif "FAILED" in line and "*** TEST" in line:
            per[cls][1] += 1
            current = None
        elif "Fails as expected" in line or "Skipped because" in line:
            current = None
    results[mode] = per
classes = sorted(set().union(*[set(p) for p in results.values()]))
head = f"{'class':<28}" + "".join(f"{m + ' pass/run':>16}" for m in modes)
print(head)
totals = {m: [0, 0] for m in modes}
for c in classes:
    row = f"{c:<28}"
    for m in modes:
        p, f = results[m].get(c, [0, 0])
        totals[m][0] += p
        totals[m][1] += f
        row += f"{f'{p}/{p + f}':>16}"
    print(row)
row = f"{'all':<28}"
for m in modes:
    p, f = totals[m]
    pct = f" ({100 * p / (p + f):.0f} %)" if p + f else ""
    row += f"{f'{p}/{p + f}{pct}':>16}"
print(row)
PY
