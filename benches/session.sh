#!/usr/bin/env bash
# `session` suite benchmarks, side by side with tmux in one run (issue 16, benchmark section):
#
#   1. idle    at each count in SESSIONS (1 10 100 300) of idle 100×24 sessions
#              (`sh -c 'cat screen; exec sleep 600'`), a fresh host and a fresh tmux server:
#              - start      whole-process `session start` vs `tmux new-session -d` (median of
#                           every start)                         Target: ≤ 1.2× tmux.
#              - threads    the host's threads vs the tmux server's   Target: ≤ 8 at every count.
#              - RSS        (RSS with the sessions − RSS empty) / count, host vs tmux server
#                                                               Target: ≤ 50 KB per session.
#              - read       whole-process `session read <id>` vs `tmux capture-pane -p` on an
#                           equal pane (same program, same content), hyperfine -N
#                                                               Target: ≤ 0.8× tmux.
#              - stop       `session stop --all` vs `tmux kill-server`  Target: ≤ 0.5 s at 300.
#              - RSS after  the host's RSS after stop --all vs the empty host's
#                                                               Target: ≤ 2× empty.
#   2. latency send → seen: in-process through the library (benches/session_latency.rs) and
#              whole-process (`session send` then `session wait --since`), vs tmux's best
#              (`send-keys`, then `capture-pane -p` polled until the token shows).
#                                                               Target: CLI ≤ tmux's best.
#   3. ingest  `cat` of a generated 50 MB coloured log inside a session until END-MARKER is on
#              screen vs a bare PTY drain of the same file (no emulator) measured in the same
#              run, and a tmux pane for reference; INGEST_REPS reps, median.
#                                                               Target: ≥ 90 % of the drain.
#
# Usage: bash benches/session.sh
# Knobs: SESSIONS ("1 10 100 300"), READ_RUNS (100), READ_WARMUP (10), LATENCY_RUNS (200),
#        INGEST_REPS (3), INGEST_MB (50). A quick run: SESSIONS="1 10" READ_RUNS=20
#        LATENCY_RUNS=20 INGEST_REPS=1 INGEST_MB=5 bash benches/session.sh
#
# Uses the release binary, a private runtime directory (its own host) and a private tmux
# socket; every session, the host and the tmux server are stopped on exit. The machine may be
# shared: compare the columns of one run, and treat single figures as rough.
set -euo pipefail

counts="${SESSIONS:-1 10 100 300}"
read_runs="${READ_RUNS:-100}"
read_warmup="${READ_WARMUP:-10}"
latency_runs="${LATENCY_RUNS:-200}"
ingest_reps="${INGEST_REPS:-3}"
ingest_mb="${INGEST_MB:-50}"

cd "$(dirname "$0")/.."
root="$PWD"
for tool in tmux hyperfine python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
bin="$target_dir/release/console2svg"
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
    # A probe session that draws the idle sessions' screen and idles until it hibernates, then
    # stops, as for tmux below: the empty host's RSS then holds the code and tables an idle
    # session uses (touched once per process), so what the idle sessions add is their own cost.
    local probe
    probe="$(start_session sh -c "cat '$tmp/screen.txt'; exec sleep 600")"
    "$bin" session wait "$probe" --text "id=37" --timeout 10s >/dev/null
    sleep 1.5
    "$bin" session stop "$probe" >/dev/null
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
tm_pane() { # name command... : a detached 100×24 session running the command
    local name="$1"
    shift
    tm new-session -d -s "$name" -x 100 -y 24 "$@"
    local size
    size="$(tm display -p -t "$name" '#{pane_width}x#{pane_height}')"
    [[ "$size" == "100x24" ]] || { echo "error: tmux pane is $size, not 100x24" >&2; exit 1; }
}

# --- 1. idle sessions: start, threads, memory, read, stop ---------------------------------
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
threads_of() { awk '/^Threads:/ { print $2 }' "/proc/$1/status"; }
# Same content: the screens compared (rows right-trimmed, trailing empty rows dropped).
trimmed() { sed 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
idle=(sh -c "cat '$tmp/screen.txt'; exec sleep 600")
: >"$tmp/start_ours"
: >"$tmp/start_tmux"
for count in $counts; do
    echo "== 1. $count idle sessions" >&2
    new_host "idle$count"
    sleep 0.5
    rss_empty=$(rss_kb "$HOST_PID")
    tm kill-server 2>/dev/null || true
    tm -f "$tmp/tmux.conf" start-server \; set -g exit-empty off
    tm new-session -d -s probe -x 100 -y 24 "${idle[@]}"
    tpid="$(tm display -p -t probe '#{pid}')"
    for _ in $(seq 100); do tm capture-pane -p -t probe | grep -q "id=37" && break; sleep 0.02; done
    tm kill-session -t probe
    sleep 0.5
    trss_empty=$(rss_kb "$tpid")
    rid=
    for ((k = 0; k < count; k++)); do
        t0=$(now_us)
        reply="$("$bin" session start --width 100 --height 24 -- "${idle[@]}")"
        t1=$(now_us)
        id="$(json_field sessionId <<<"$reply")"
        tm new-session -d -s "i$k" -x 100 -y 24 "${idle[@]}"
        t2=$(now_us)
        echo "$((t1 - t0))" >>"$tmp/start_ours"
        echo "$((t2 - t1))" >>"$tmp/start_tmux"
        [[ -n "$rid" ]] || rid="$id"
    done
    sleep 2
    rss_full=$(rss_kb "$HOST_PID")
    trss_full=$(rss_kb "$tpid")
    echo "   host: ${rss_empty} kB empty, ${rss_full} kB with $count, $(threads_of "$HOST_PID") threads;" \
        "tmux server: ${trss_empty} kB empty, ${trss_full} kB, $(threads_of "$tpid") threads" >&2
    {
        echo "idle_${count}_threads_ours=$(threads_of "$HOST_PID")"
        echo "idle_${count}_threads_tmux=$(threads_of "$tpid")"
        echo "idle_${count}_rss_empty_ours=$rss_empty"
        echo "idle_${count}_rss_full_ours=$rss_full"
        echo "idle_${count}_rss_empty_tmux=$trss_empty"
        echo "idle_${count}_rss_full_tmux=$trss_full"
    } >>"$results"
    "$bin" session wait "$rid" --text "id=37" --timeout 10s >/dev/null
    for _ in $(seq 100); do tm capture-pane -p -t i0 | grep -q "id=37" && break; sleep 0.02; done
    "$bin" session read "$rid" | python3 -c 'import json,sys; print(json.load(sys.stdin)["screen"]["text"])' \
        | trimmed >"$tmp/ours.txt"
    tm capture-pane -p -t i0 | trimmed >"$tmp/tmux.txt"
    if ! cmp -s "$tmp/ours.txt" "$tmp/tmux.txt"; then
        echo "   warning: the screens differ:" >&2
        diff "$tmp/ours.txt" "$tmp/tmux.txt" | head -10 >&2 || true
    fi
    hyperfine -N --style none --warmup "$read_warmup" --runs "$read_runs" \
        --export-json "$tmp/read.json" \
        -n "console2svg session read" "$bin session read $rid" \
        -n "tmux capture-pane -p" "tmux -L $tsock capture-pane -p -t i0" >/dev/null
    python3 - "$tmp/read.json" "$count" >>"$results" <<'EOF'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
ours, tmux = (statistics.median(x["times"]) * 1000 for x in r)
print(f"idle_{sys.argv[2]}_read_ours={ours:.3f}")
print(f"idle_{sys.argv[2]}_read_tmux={tmux:.3f}")
EOF
    t0=$(now_us)
    "$bin" session stop --all --yes >/dev/null
    t1=$(now_us)
    tm kill-server
    t2=$(now_us)
    sleep 1
    echo "idle_${count}_stop_ours=$(((t1 - t0) / 1000))" >>"$results"
    echo "idle_${count}_stop_tmux=$(((t2 - t1) / 1000))" >>"$results"
    echo "idle_${count}_rss_after_ours=$(rss_kb "$HOST_PID")" >>"$results"
    echo "   read ${rid}; stop --all $(((t1 - t0) / 1000)) ms, tmux kill-server $(((t2 - t1) / 1000)) ms;" \
        "host RSS after the stop $(rss_kb "$HOST_PID") kB" >&2
done
read -r med _ < <(awk '{ printf "%.3f\n", $1 / 1000 }' "$tmp/start_ours" | stats)
echo "start_ours=$med" >>"$results"
read -r med _ < <(awk '{ printf "%.3f\n", $1 / 1000 }' "$tmp/start_tmux" | stats)
echo "start_tmux=$med" >>"$results"
echo "counts=$counts" >>"$results"

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

echo "   tmux's best (send-keys; capture-pane -p polled with no pause)…" >&2
tm -f "$tmp/tmux.conf" start-server \; set -g exit-empty off
tm_pane lat cat
for _ in $(seq 100); do tm capture-pane -p -t lat >/dev/null && break; sleep 0.01; done
: >"$tmp/lat_tmux"
tmux_misses=0
for ((i = -10; i < latency_runs; i++)); do
    tok="tmx$((i + 10))z$RANDOM"
    t0=$(now_us)
    tm send-keys -t lat -l "$tok"
    tm send-keys -t lat Enter
    seen=
    for _ in $(seq 2000); do
        if tm capture-pane -p -t lat | grep -qF "$tok"; then seen=1; break; fi
    done
    t1=$(now_us)
    if [[ -n "$seen" ]]; then
        ((i >= 0)) && echo "$((t1 - t0))" >>"$tmp/lat_tmux"
    else
        ((i >= 0)) && tmux_misses=$((tmux_misses + 1))
    fi
done
read -r med p90 < <(awk '{ printf "%.4f\n", $1 / 1000 }' "$tmp/lat_tmux" | stats)
echo "lat_tmux_median=$med" >>"$results"
echo "lat_tmux_p90=$p90" >>"$results"
echo "lat_tmux_misses=$tmux_misses/$latency_runs" >>"$results"
tm kill-session -t lat

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

# --- results -------------------------------------------------------------------------------
python3 - "$results" <<'EOF'
import sys
r = {}
for line in open(sys.argv[1]):
    k, v = line.rstrip("\n").split("=", 1)
    r[k] = v
f = lambda k: float(r[k])
rows = []
def row(figure, ours, peer, ratio, target, met):
    rows.append((figure, ours, peer, ratio, target, {True: "yes", False: "NO", None: "-"}[met]))
counts = [int(c) for c in r["counts"].split()]
for c in counts:
    p = f"idle_{c}_"
    ratio = f(p + "read_ours") / f(p + "read_tmux")
    row(f"read, {c} idle (median)", f"{f(p + 'read_ours'):.2f} ms", f"{f(p + 'read_tmux'):.2f} ms",
        f"{ratio:.2f}x", "<= 0.8x tmux", ratio <= 0.8)
for c in counts:
    p = f"idle_{c}_"
    t = int(r[p + "threads_ours"])
    row(f"host threads, {c} idle", str(t), r[p + "threads_tmux"], "-", "<= 8", t <= 8)
for c in counts:
    p = f"idle_{c}_"
    ours = (f(p + "rss_full_ours") - f(p + "rss_empty_ours")) / c
    tmux = (f(p + "rss_full_tmux") - f(p + "rss_empty_tmux")) / c
    row(f"RSS per idle session, {c} idle", f"{ours:.0f} KB", f"{tmux:.0f} KB",
        f"{ours / tmux:.1f}x" if tmux > 0 else "-", "<= 50 KB", ours <= 50)
for c in counts:
    p = f"idle_{c}_"
    ratio = f(p + "rss_after_ours") / f(p + "rss_empty_ours")
    row(f"RSS after stop --all, {c} idle", f"{f(p + 'rss_after_ours') / 1024:.1f} MB",
        f"empty host {f(p + 'rss_empty_ours') / 1024:.1f} MB", f"{ratio:.2f}x", "<= 2x empty",
        ratio <= 2)
for c in counts:
    p = f"idle_{c}_"
    ours, tmux = f(p + "stop_ours"), f(p + "stop_tmux")
    row(f"stop --all, {c} idle", f"{ours:.0f} ms", f"kill-server {tmux:.0f} ms",
        f"{ours / tmux:.1f}x" if tmux > 0 else "-", "<= 500 ms at 300",
        ours <= 500 if c == 300 else None)
ratio = f("start_ours") / f("start_tmux")
row("session start (median, all counts)", f"{f('start_ours'):.2f} ms", f"{f('start_tmux'):.2f} ms",
    f"{ratio:.2f}x", "<= 1.2x tmux", ratio <= 1.2)
ratio = f("lat_cli_median") / f("lat_tmux_median")
row("send -> seen, CLI (median)", f"{f('lat_cli_median'):.2f} ms",
    f"tmux best {f('lat_tmux_median'):.2f} ms", f"{ratio:.2f}x", "<= tmux's best", ratio <= 1)
row("send -> seen, in-process (median)", f"{f('lat_inproc_median'):.3f} ms", "-", "-", "info", None)
share = f("ingest_pty") / f("ingest_ours")
mb = f("ingest_bytes") / 1e6
row(f"ingest {mb:.0f} MB (median of {r['ingest_reps']})", f"{f('ingest_ours'):.0f} ms",
    f"bare PTY {f('ingest_pty'):.0f} ms", f"{share * 100:.0f} %", ">= 90 % of the drain",
    share >= 0.9)
row(f"ingest {mb:.0f} MB vs a tmux pane", f"{f('ingest_ours'):.0f} ms",
    f"tmux {f('ingest_tmux'):.0f} ms", f"{f('ingest_tmux') / f('ingest_ours'):.2f}x faster",
    "info", None)
hdr = ("figure", "ours", "tmux / peer", "ratio", "target", "met?")
w = [max(len(str(x[i])) for x in rows + [hdr]) for i in range(6)]
print()
for x in [hdr] + rows:
    print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(x)))
print()
print(f"send -> seen misses: in-process {r['lat_inproc_misses']}, CLI {r['lat_cli_misses']}, "
      f"tmux {r['lat_tmux_misses']}")
EOF
