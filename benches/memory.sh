#!/usr/bin/env bash
# Host memory and the big-screen read (issue 19 item 7, issue 16's memory figures), one host:
#
#   1. empty     the host's RSS with no session (after one started and stopped: the empty
#                host's baseline).
#   2. idle      at each count in SESSIONS (10 100): (RSS with the idle 100×24 sessions − empty)
#                / count.                                       Target: ≤ 50 KB per session.
#                Then `stop --all`; RSS after.                  Target: ≤ 2× empty.
#   3. flood     one session per SCROLLBACKS value (default, 10000, 100000 rows of scrollback:
#                `--scrollback`) printing `seq 1 FLOOD_LINES` (200000): the host's RSS growth
#                while they are full, then after `stop --all`.
#   4. read      `session read --structured` of a 500×500 screen full of coloured text, whole
#                process, median of READ_RUNS (5).               Target: ≤ 0.5 s.
#
# Usage: bash benches/memory.sh
# Knobs: SESSIONS ("10 100"), SCROLLBACKS ("default 10000 100000"), FLOOD_LINES (200000),
#        READ_RUNS (5).
#
# Uses the release binary and a private runtime directory (its own host); every session and
# the host are stopped on exit. The machine may be shared: treat the figures as rough.
set -euo pipefail

counts="${SESSIONS:-10 100}"
scrollbacks="${SCROLLBACKS:-default 10000 100000}"
flood_lines="${FLOOD_LINES:-200000}"
read_runs="${READ_RUNS:-5}"

cd "$(dirname "$0")/.."
root="$PWD"
command -v python3 >/dev/null || { echo "error: python3 is required" >&2; exit 1; }

echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
bin="$target_dir/release/console2svg"
[[ -x "$bin" ]] || { echo "error: $bin not found after the build" >&2; exit 1; }

tmp="$(mktemp -d /tmp/c2s-memorybench.XXXXXX)"
export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt"
export CONSOLE2SVG_HOST_IDLE_SECS=60

# The pid of the host serving $CONSOLE2SVG_RUNTIME_DIR (empty when none answers).
host_pid() {
    python3 - "$CONSOLE2SVG_RUNTIME_DIR/host.sock" <<'EOF' 2>/dev/null || true
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(b'{"op":"ping"}\n')
data = b""
while not data.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
print(json.loads(data)["pid"])
EOF
}

cleanup() {
    set +e
    if [[ -S "$CONSOLE2SVG_RUNTIME_DIR/host.sock" ]]; then
        "$bin" session stop --all --yes >/dev/null 2>&1
        pid="$(host_pid)"
        [[ -n "$pid" ]] && kill "$pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
now_us() { echo $((${EPOCHREALTIME/./})); }

# --- 1. the empty host ----------------------------------------------------------------------
first="$("$bin" session start -- true | json_field sessionId)"
"$bin" session stop "$first" >/dev/null
pid="$(host_pid)"
[[ -n "$pid" ]] || { echo "error: no host answers" >&2; exit 1; }
sleep 1
empty=$(rss_kb "$pid")
echo "empty host: ${empty} kB"

# --- 2. idle sessions -----------------------------------------------------------------------
for count in $counts; do
    before=$(rss_kb "$pid")
    for ((k = 0; k < count; k++)); do
        "$bin" session start --width 100 --height 24 -- sh -c 'echo "$ ready"; exec sleep 600' >/dev/null
    done
    sleep 2
    full=$(rss_kb "$pid")
    echo "$count idle sessions: ${full} kB, $(((full - before) / count)) kB a session"
    "$bin" session stop --all --yes >/dev/null
    sleep 1
    after=$(rss_kb "$pid")
    echo "   after stop --all: ${after} kB ($(python3 -c "print(f'{$after / $empty:.2f}')")× empty)"
done

# --- 3. full scrollbacks --------------------------------------------------------------------
before=$(rss_kb "$pid")
ids=()
for sb in $scrollbacks; do
    args=()
    [[ "$sb" == default ]] || args=(--scrollback "$sb")
    ids+=("$("$bin" session start "${args[@]}" -- sh -c "seq 1 $flood_lines; echo flood-done; exec sleep 600" |
        json_field sessionId)")
done
i=0
for sb in $scrollbacks; do
    id="${ids[$i]}"
    "$bin" session wait "$id" --text flood-done --timeout 120s >/dev/null
    rows="$("$bin" session read "$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["screen"]["scrollbackRows"])')"
    echo "flood of $flood_lines lines, scrollback $sb: $rows rows kept"
    i=$((i + 1))
done
full=$(rss_kb "$pid")
echo "   host with the full scrollbacks: ${full} kB (+$((full - before)) kB)"
"$bin" session stop --all --yes >/dev/null
sleep 1
after=$(rss_kb "$pid")
echo "   after stop --all: ${after} kB ($(python3 -c "print(f'{$after / $empty:.2f}')")× empty)"

# --- 4. a 500×500 structured read ----------------------------------------------------------
cat >"$tmp/big.py" <<'EOF'
import sys
for r in range(499):
    sys.stdout.write("".join("\x1b[3%dm%s" % (c % 8, chr(65 + c % 26)) for c in range(500)))
sys.stdout.write("\x1b[0mbig-ready")
sys.stdout.flush()
EOF
big="$("$bin" session start --width 500 --height 500 -- sh -c "python3 '$tmp/big.py'; exec sleep 600" |
    json_field sessionId)"
"$bin" session wait "$big" --text big-ready --timeout 60s >/dev/null
times=()
for ((k = 0; k < read_runs; k++)); do
    t0=$(now_us)
    "$bin" session read "$big" --structured >"$tmp/big.json"
    t1=$(now_us)
    times+=("$((t1 - t0))")
done
median="$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
echo "500×500 read --structured: median $((median / 1000)) ms of $read_runs" \
    "($(wc -c <"$tmp/big.json") bytes)"
"$bin" session stop --all --yes >/dev/null
