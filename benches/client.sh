#!/usr/bin/env bash
# The client path, whole process, side by side with tmux in one run (issue: host redesign,
# item 6, "a lean client path"):
#
#   read      `console2svg session read <id>` vs `tmux capture-pane -p` on an equal pane (the
#             same 100×24 screen of text).                        Target: ratio ≤ 0.8×.
#   list      `console2svg session list` (one session), for scale.
#   start-up  where the time goes: `console2svg --version` (process start and argument
#             parsing, no socket), and `tmux -V` (tmux's own process start).
#
# Usage: bash benches/client.sh [BINARY]
#   BINARY defaults to the release build (built first). Give another binary (an older build) to
#   compare before/after in the same run: the host is always the one of BINARY.
# Knobs: RUNS (300), WARMUP (30).
# On a busy machine hyperfine's sequential runs drift with the load; `perf stat -r 300 -e
# task-clock,page-faults <command>` on each command gives steadier CPU time and page faults.
#
# Uses a private runtime directory (its own host) and a private tmux socket; the session, the
# host and the tmux server are stopped on exit. Figures on a shared machine are rough.
set -euo pipefail

runs="${RUNS:-300}"
warmup="${WARMUP:-30}"

cd "$(dirname "$0")/.."
for tool in tmux hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done
if [[ $# -ge 1 ]]; then
    bin="$(realpath "$1")"
else
    echo "building release binary (cargo build --release)…" >&2
    cargo build --release --quiet
    bin="$PWD/${CARGO_TARGET_DIR:-target}/release/console2svg"
fi
[[ -x "$bin" ]] || { echo "error: $bin is not an executable" >&2; exit 1; }

tmp="$(mktemp -d /tmp/c2s-clientbench.XXXXXX)"
export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt"
export CONSOLE2SVG_HOST_IDLE_SECS=30
tsock="c2sclient$$"
tm() { tmux -L "$tsock" "$@"; }

cleanup() {
    set +e
    [[ -S "$CONSOLE2SVG_RUNTIME_DIR/host.sock" ]] && "$bin" session stop --all --yes >/dev/null 2>&1
    tm kill-server 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# The same screen in both: 24 lines of text on a 100×24 terminal.
python3 - "$tmp/screen.txt" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(23):
        f.write(f"{i:02d} the quick brown fox jumps over the lazy dog " * 2 + "\n")
EOF
prog=(sh -c "cat '$tmp/screen.txt'; exec sleep 600")

rid="$("$bin" session start --width 100 --height 24 -- "${prog[@]}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')"
"$bin" session wait "$rid" --text "22 the quick" --timeout 10s >/dev/null

printf 'set -g status off\nset -g default-terminal "tmux-256color"\n' >"$tmp/tmux.conf"
tm -f "$tmp/tmux.conf" new-session -d -s bench -x 100 -y 24 "${prog[@]}"
for _ in $(seq 100); do
    tm capture-pane -p -t bench | grep -q "22 the quick" && break
    sleep 0.05
done

"$bin" session read "$rid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["screen"]["text"])' \
    | sed 's/[[:space:]]*$//' >"$tmp/ours.txt"
tm capture-pane -p -t bench | sed 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/tmux.txt"
cmp -s "$tmp/ours.txt" "$tmp/tmux.txt" || echo "warning: the two screens differ" >&2

hyperfine -N --style basic --warmup "$warmup" --runs "$runs" --export-json "$tmp/client.json" \
    -n "console2svg session read" "$bin session read $rid" \
    -n "tmux capture-pane -p" "tmux -L $tsock capture-pane -p -t bench" \
    -n "console2svg session list" "$bin session list" \
    -n "console2svg --version" "$bin --version" \
    -n "tmux -V" "tmux -V" >&2

python3 - "$tmp/client.json" <<'EOF'
import json, statistics, sys
r = {x["command"]: x["times"] for x in json.load(open(sys.argv[1]))["results"]}
med = {k: statistics.median(v) * 1000 for k, v in r.items()}
low = {k: min(v) * 1000 for k, v in r.items()}
print("ms (rough on a shared machine; min is the least disturbed):")
print(f"  {'':28s} {'median':>8s} {'min':>8s}")
for k in med:
    print(f"  {k:28s} {med[k]:8.3f} {low[k]:8.3f}")
for what, d in (("median", med), ("min", low)):
    ratio = d["console2svg session read"] / d["tmux capture-pane -p"]
    print(f"read ratio (ours / tmux), {what}: {ratio:.2f}  (target <= 0.80)")
EOF
