#!/usr/bin/env bash
# `session` suite benchmarks, side by side with tmux in one run (issue, benchmark section):
#
#   1. read    whole-process `session read <id>` vs `tmux capture-pane -p` on an equal pane
#              (same program, 100×24, same content), hyperfine -N.   Target: ratio ≤ 1×.
#   2. latency send → the wait that sees its echo: in-process through the library
#              (benches/session_latency.rs) and whole-process (`session send` then
#              `session wait --since`).                                Target: median ≤ 10 ms.
#   3. ingest  `cat` of a generated 50 MB coloured log (benches/ingest.rs's generator) inside a
#              session vs a tmux pane of the same size, until END-MARKER is on screen; 3 reps,
#              median.                                                Target: ≥ 4× faster.
#   4. memory  host VmRSS with 100 idle 100×24 sessions (`sh -c 'sleep 600'`).
#                                                                     Target: ≤ 500 MB.
#
# Usage: bash benches/session.sh
# Knobs: READ_RUNS (200), READ_WARMUP (20), LATENCY_RUNS (200), INGEST_REPS (3),
#        INGEST_MB (50), MEM_SESSIONS (100).
#
# Uses the release binary, a private runtime directory (its own host) and a private tmux
# socket; every session, the host and the tmux server are stopped on exit.
set -euo pipefail

read_runs="${READ_RUNS:-200}"
read_warmup="${READ_WARMUP:-20}"
latency_runs="${LATENCY_RUNS:-200}"
ingest_reps="${INGEST_REPS:-3}"
ingest_mb="${INGEST_MB:-50}"
mem_sessions="${MEM_SESSIONS:-100}"

cd "$(dirname "$0")/.."
root="$PWD"
for tool in tmux hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
bin="$root/${CARGO_TARGET_DIR:-target}/release/console2svg"
[[ -x "$bin" ]] || { echo "error: $bin not found after the build" >&2; exit 1; }

tmp="$(mktemp -d /tmp/c2s-sessionbench.XXXXXX)"
export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt"
# A host left behind by an interrupted run goes away by itself.
export CONSOLE2SVG_HOST_IDLE_SECS=30
tsock="c2sbench$$"
tm() { tmux -L "$tsock" "$@"; }
results="$tmp/results"
: >"$results"

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
    tm kill-server 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# Stops the current host (all its sessions, then the process) and starts a fresh one in its own
# runtime directory $tmp/rt-$1; sets HOST_PID.
HOST_PID=
new_host() {
    if [[ -S "$CONSOLE2SVG_RUNTIME_DIR/host.sock" ]]; then
        "$bin" session stop --all --yes >/dev/null
        local old
        old="$(host_pid)"
        [[ -n "$old" ]] && kill "$old" 2>/dev/null
    fi
    export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt-$1"
    "$bin" session list >/dev/null
    HOST_PID="$(host_pid)"
    [[ -n "$HOST_PID" ]] || { echo "error: no host answers in $CONSOLE2SVG_RUNTIME_DIR" >&2; exit 1; }
}

# The value of the top-level JSON field $1 in the document on stdin.
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# Starts a session; prints its id.
start_session() { "$bin" session start --width 100 --height 24 -- "$@" | json_field sessionId; }

# Prints "median p90" of the numbers (one a line) on stdin.
stats() {
    sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) exit 1
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            i = int(NR * 0.9 + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
            printf "%.3f %.3f\n", m, v[i]
        }'
}

now_us() { echo "${EPOCHREALTIME/./}"; }

# --- the generated log (benches/ingest.rs's generator) -------------------------------------
echo "generating the ${ingest_mb} MB coloured log…" >&2
python3 - "$tmp/log.txt" "$ingest_mb" <<'EOF'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
target = mb * 1024 * 1024
LEVELS = ["\x1b[32mINFO \x1b[0m", "\x1b[1;33mWARN \x1b[0m", "\x1b[1;31mERROR\x1b[0m",
          "\x1b[2;37mDEBUG\x1b[0m", "\x1b[36mTRACE\x1b[0m"]
MODULES = ["http::server", "db::pool", "cache", "worker::queue"]
CJK = ["中文日志消息：连接已建立", "请求处理完成，耗时正常", "警告：缓存命中率下降"]
out, size, n = [], 0, 0
while size < target:
    ms = n * 37
    line = "\x1b[90m2025-01-01T%02d:%02d:%02d.%03dZ\x1b[0m %s \x1b[38;5;%dm%-14s\x1b[0m " % (
        (ms // 3_600_000) % 24, (ms // 60_000) % 60, (ms // 1000) % 60, ms % 1000,
        LEVELS[n % 7 % 5], 17 + (n * 11) % 214, MODULES[n % 4])
    if n % 5 == 2:
        line += "%s id=%d" % (CJK[n % 3], n)
    else:
        line += ("request \x1b[38;2;%d;%d;%dm#%08x\x1b[0m served in \x1b[1m%d.%03d\x1b[0m ms "
                 "from 10.0.%d.%d bytes=%d") % (
            100 + (n * 7) % 156, 100 + (n * 13) % 156, 100 + (n * 29) % 156, n,
            n % 250, (n * 7919) % 1000, (n // 256) % 256, n % 256, (n * 104_729) % 1_000_000)
    b = (line + "\r\n").encode()
    out.append(b)
    size += len(b)
    n += 1
with open(path, "wb") as f:
    f.write(b"".join(out))
EOF
head -n 40 "$tmp/log.txt" >"$tmp/screen.txt"
log_bytes=$(stat -c %s "$tmp/log.txt")

# tmux: private server, no status line (the pane is the whole 100×24 window), scrollback as
# deep as the emulator's (10 000 lines).
cat >"$tmp/tmux.conf" <<'EOF'
set -g status off
set -g history-limit 10000
set -g default-terminal "tmux-256color"
EOF
tm -f "$tmp/tmux.conf" start-server \; set -g exit-empty off
tm_pane() { # name command... : a detached 100×24 session running the command
    local name="$1"
    shift
    tm new-session -d -s "$name" -x 100 -y 24 "$@"
    local size
    size="$(tm display -p -t "$name" '#{pane_width}x#{pane_height}')"
    [[ "$size" == "100x24" ]] || { echo "error: tmux pane is $size, not 100x24" >&2; exit 1; }
}

# --- 1. read vs capture-pane ---------------------------------------------------------------
echo "== 1. session read vs tmux capture-pane -p" >&2
new_host read
prog=(sh -c "cat '$tmp/screen.txt'; exec sleep 600")
rid="$(start_session "${prog[@]}")"
tm_pane bench "${prog[@]}"
"$bin" session wait "$rid" --text "id=37" --timeout 10s >/dev/null
for _ in $(seq 100); do tm capture-pane -p -t bench | grep -q "id=37" && break; sleep 0.02; done
# Same content: compare the screens (rows right-trimmed, trailing empty rows dropped).
"$bin" session read "$rid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["screen"]["text"])' \
    | sed 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/ours.txt"
tm capture-pane -p -t bench | sed 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/tmux.txt"
if cmp -s "$tmp/ours.txt" "$tmp/tmux.txt"; then
    echo "   screens are identical ($(wc -l <"$tmp/ours.txt") rows)" >&2
else
    echo "   warning: the screens differ:" >&2
    diff "$tmp/ours.txt" "$tmp/tmux.txt" | head -10 >&2 || true
fi
hyperfine -N --style basic --warmup "$read_warmup" --runs "$read_runs" \
    --export-json "$tmp/read.json" \
    -n "console2svg session read" "$bin session read $rid" \
    -n "tmux capture-pane -p" "tmux -L $tsock capture-pane -p -t bench" >&2
python3 - "$tmp/read.json" >>"$results" <<'EOF'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
ours, tmux = (statistics.median(x["times"]) * 1000 for x in r)
print(f"read_ours={ours:.3f}")
print(f"read_tmux={tmux:.3f}")
EOF
"$bin" session stop "$rid" >/dev/null
tm kill-session -t bench

# --- 2. send → wait latency ----------------------------------------------------------------
echo "== 2. send → wait latency" >&2
new_host latency
echo "   in-process (cargo bench --bench session_latency)…" >&2
CONSOLE2SVG_BIN="$bin" LATENCY_RUNS="$latency_runs" \
    cargo bench --quiet --bench session_latency 2>"$tmp/latency.err" | tee "$tmp/latency.out" >&2 \
    || { cat "$tmp/latency.err" >&2; exit 1; }
grep '^miss' "$tmp/latency.err" >&2 || true
read -r _ _ med p90 runs misses < <(grep '^RESULT' "$tmp/latency.out" | tr '=' ' ' |
    awk '{ print $1, $2, $4, $6, $8, $10 }')
echo "lat_inproc_median=$med" >>"$results"
echo "lat_inproc_p90=$p90" >>"$results"
echo "lat_inproc_misses=$misses/$((runs + misses))" >>"$results"

echo "   whole process (session send; session wait --since)…" >&2
lid="$(start_session cat)"
: >"$tmp/lat_cli"
cli_misses=0
for ((i = -10; i < latency_runs; i++)); do # 10 warm-up rounds
    tok="cli$((i + 10))z$RANDOM"
    t0=$(now_us)
    out="$("$bin" session send "$lid" --text "$tok" --keys Enter)"
    [[ "$out" =~ \"version\":([0-9]+) ]] || { echo "error: send reply: $out" >&2; exit 1; }
    if "$bin" session wait "$lid" --text "$tok" --since "${BASH_REMATCH[1]}" --timeout 1s >/dev/null 2>&1; then
        t1=$(now_us)
        ((i >= 0)) && echo "$(((t1 - t0)))" >>"$tmp/lat_cli"
    else
        ((i >= 0)) && cli_misses=$((cli_misses + 1))
    fi
done
read -r med p90 < <(awk '{ printf "%.4f\n", $1 / 1000 }' "$tmp/lat_cli" | stats)
echo "lat_cli_median=$med" >>"$results"
echo "lat_cli_p90=$p90" >>"$results"
echo "lat_cli_misses=$cli_misses/$latency_runs" >>"$results"
"$bin" session stop "$lid" >/dev/null

# --- 3. ingest -----------------------------------------------------------------------------
echo "== 3. ingest: cat of a $((log_bytes / 1024 / 1024)) MiB log, until END-MARKER is on screen" >&2
new_host ingest
# The marker is split in the typed command line so the echoed command cannot match.
: >"$tmp/ing_ours"
: >"$tmp/ing_tmux"
for ((rep = 1; rep <= ingest_reps; rep++)); do
    cmdline="cat '$tmp/log.txt'; printf 'END-%s\\n' MARKER-$rep"
    sid="$(start_session bash --norc --noprofile)"
    "$bin" session wait "$sid" --text 'bash-' --timeout 10s >/dev/null
    t0=$(now_us)
    "$bin" session send "$sid" --text "$cmdline" --keys Enter >/dev/null
    "$bin" session wait "$sid" --text "END-MARKER-$rep" --timeout 600s >/dev/null
    t1=$(now_us)
    echo "$(((t1 - t0) / 1000))" >>"$tmp/ing_ours"
    echo "   rep $rep: console2svg session $(((t1 - t0) / 1000)) ms" >&2
    "$bin" session stop "$sid" >/dev/null

    tm_pane "ing$rep" bash --norc --noprofile
    for _ in $(seq 500); do tm capture-pane -p -t "ing$rep" | grep -q 'bash-' && break; sleep 0.01; done
    t0=$(now_us)
    tm send-keys -t "ing$rep" -l "$cmdline"
    tm send-keys -t "ing$rep" Enter
    until tm capture-pane -p -t "ing$rep" | grep -q "END-MARKER-$rep"; do sleep 0.01; done
    t1=$(now_us)
    echo "$(((t1 - t0) / 1000))" >>"$tmp/ing_tmux"
    echo "   rep $rep: tmux pane $(((t1 - t0) / 1000)) ms" >&2
    tm kill-session -t "ing$rep"
done
# Reference floor: the same cat through a bare 100×24 PTY whose master is only read and
# discarded (no emulator), to tell the kernel's PTY cost from the host's.
: >"$tmp/ing_pty"
for ((rep = 1; rep <= ingest_reps; rep++)); do
    python3 - "$tmp/log.txt" >>"$tmp/ing_pty" <<'EOF'
import fcntl, os, pty, struct, sys, termios, time
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execvp("cat", ["cat", sys.argv[1]])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
while True:
    try:
        if not os.read(fd, 65536):
            break
    except OSError:
        break
os.waitpid(pid, 0)
print(round((time.monotonic() - t0) * 1000))
EOF
done
echo "   bare PTY drain (no emulator): $(tr '\n' ' ' <"$tmp/ing_pty")ms" >&2
read -r med _ < <(stats <"$tmp/ing_pty")
echo "ingest_pty=$med" >>"$results"
read -r med _ < <(stats <"$tmp/ing_ours")
echo "ingest_ours=$med" >>"$results"
read -r med _ < <(stats <"$tmp/ing_tmux")
echo "ingest_tmux=$med" >>"$results"
echo "ingest_bytes=$log_bytes" >>"$results"
echo "ingest_reps=$ingest_reps" >>"$results"

# --- 4. host memory ------------------------------------------------------------------------
echo "== 4. host memory with $mem_sessions idle 100×24 sessions" >&2
new_host memory
pid="$HOST_PID"
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
sleep 0.5
rss0=$(rss_kb "$pid")
for ((k = 0; k < mem_sessions; k++)); do
    start_session sh -c 'sleep 600' >/dev/null
done
sleep 2
rss1=$(rss_kb "$pid")
threads=$(ls "/proc/$pid/task" | wc -l)
echo "   host $pid: VmRSS ${rss0} kB with 0 sessions, ${rss1} kB with $mem_sessions; $threads threads" >&2
echo "mem_rss0=$rss0" >>"$results"
echo "mem_rss1=$rss1" >>"$results"
echo "mem_sessions=$mem_sessions" >>"$results"
echo "mem_threads=$threads" >>"$results"
"$bin" session stop --all --yes >/dev/null

# --- results -------------------------------------------------------------------------------
python3 - "$results" <<'EOF'
import sys
r = {}
for line in open(sys.argv[1]):
    k, v = line.strip().split("=", 1)
    r[k] = v
f = lambda k: float(r[k])
rows = []
def row(name, ours, tmux, ratio, target, ok):
    rows.append((name, ours, tmux, ratio, target, "PASS" if ok else "MISS"))
ratio = f("read_ours") / f("read_tmux")
row("1 read (median wall/call)", f"{f('read_ours'):.2f} ms", f"{f('read_tmux'):.2f} ms",
    f"{ratio:.2f}x", "ours/tmux <= 1x", ratio <= 1.0)
row("2 latency in-process (median)", f"{f('lat_inproc_median'):.3f} ms", "-",
    f"p90 {f('lat_inproc_p90'):.3f} ms", "median <= 10 ms", f("lat_inproc_median") <= 10)
row("2 latency CLI send+wait (median)", f"{f('lat_cli_median'):.2f} ms", "-",
    f"p90 {f('lat_cli_p90'):.2f} ms", "median <= 10 ms", f("lat_cli_median") <= 10)
speed = f("ingest_tmux") / f("ingest_ours")
mb = f("ingest_bytes") / 1e6
row(f"3 ingest {mb:.0f} MB (median of {r['ingest_reps']})", f"{f('ingest_ours'):.0f} ms", f"{f('ingest_tmux'):.0f} ms",
    f"{speed:.2f}x faster", "tmux/ours >= 4x", speed >= 4)
row("  (bare PTY drain, no emulator)", f"{f('ingest_pty'):.0f} ms", "-",
    f"ceiling {f('ingest_tmux') / f('ingest_pty'):.2f}x", "reference", True)
rows[-1] = rows[-1][:5] + ("info",)
n = int(r["mem_sessions"])
rss1 = f("mem_rss1") / 1024
per = (f("mem_rss1") - f("mem_rss0")) / 1024 / n
row(f"4 host RSS, {n} idle sessions", f"{rss1:.1f} MB", "-",
    f"{per:.2f} MB/session", "<= 500 MB", rss1 <= 500)
w = [max(len(str(x[i])) for x in rows + [("benchmark", "ours", "tmux", "ratio/extra", "target", "")]) for i in range(6)]
hdr = ("benchmark", "ours", "tmux", "ratio/extra", "target", "")
print()
for x in [hdr] + rows:
    print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(x)))
print()
print(f"send→wait misses (echo already counted in the send reply's version): "
      f"in-process {r['lat_inproc_misses']}, CLI {r['lat_cli_misses']}")
print(f"host RSS with 0 sessions {f('mem_rss0')/1024:.1f} MB; threads with {n} sessions: {r['mem_threads']}")
EOF
