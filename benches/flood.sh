#!/usr/bin/env bash
# Flood benchmark (issue 19 item 2), side by side with tmux in one run:
#
#   N sessions each printing a coloured log in an endless loop (`while :; do cat log; done`,
#   100×24), plus M concurrent clients issuing list / read / send for T seconds, each request's
#   latency recorded and each reply checked (benches/flood_load.py):
#
#     ours, socket   clients speak the host protocol on its socket (the host's latency, no
#                    process start)
#     ours, process  clients run `console2svg session list|read|send` (what a user sees)
#     tmux           the same N panes flooding; clients run `tmux list-sessions`,
#                    `capture-pane -p`, `send-keys` (tmux has no other client)
#
#   Then `session stop --all` under the flood (its time and whether it reports success) vs
#   `tmux kill-server`.
#
#   Target (issue 19): 50 flooding sessions + 100 clients for 20 s → p99 ≤ 100 ms for list,
#   read and send; 0 errors (no host_unavailable, no timeout, no garbled or crossed reply).
#
# Usage: bash benches/flood.sh
# Knobs: SESSIONS (N, 50), CLIENTS (M, 100), DURATION (T, s, 20), MODES ("socket process tmux"),
#        LOG_KB (size of the flooded log, 256), WARMUP (s before measuring, 2),
#        PAUSE_MS (each client's pause between its requests, 0: a closed loop, where latency
#        is M / throughput), BASELINE=1 (first the same load on N idle sessions: what the
#        flood adds), PROFILE=1 (perf record of the host during the socket run; prints the top functions
#        and each host thread's CPU time).
#
# Uses the release binary, a private runtime directory (its own host) and a private tmux
# socket; every session, the host and the tmux server are stopped on exit. The machine is
# shared: treat the figures as rough and compare the columns of one run.
set -euo pipefail

sessions="${SESSIONS:-50}"
clients="${CLIENTS:-100}"
seconds="${DURATION:-20}"
modes="${MODES:-socket process tmux}"
log_kb="${LOG_KB:-256}"
warmup="${WARMUP:-2}"
pause_ms="${PAUSE_MS:-0}"
profile="${PROFILE:-}"

cd "$(dirname "$0")/.."
root="$PWD"
for tool in tmux python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done
if [[ -n "$profile" ]] && ! command -v perf >/dev/null; then
    echo "error: PROFILE=1 needs perf (apt-get install linux-perf)" >&2
    exit 1
fi

echo "building release binary (cargo build --release)…" >&2
cargo build --release --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" == /* ]] || target_dir="$root/$target_dir"
bin="$target_dir/release/console2svg"
[[ -x "$bin" ]] || { echo "error: $bin not found after the build" >&2; exit 1; }

tmp="$(mktemp -d /tmp/c2s-floodbench.XXXXXX)"
export CONSOLE2SVG_RUNTIME_DIR="$tmp/rt"
export CONSOLE2SVG_HOST_IDLE_SECS=30
tsock="c2sflood$$"
tm() { tmux -L "$tsock" "$@"; }
results="$tmp/results"
: >"$results"

host_pid() {
    python3 - "$CONSOLE2SVG_RUNTIME_DIR/host.sock" <<'EOF' 2>/dev/null || true
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
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
    [[ -n "${perf_pid:-}" ]] && kill -INT "$perf_pid" 2>/dev/null
    if [[ -S "$CONSOLE2SVG_RUNTIME_DIR/host.sock" ]]; then
        pid="$(host_pid)"
        timeout 20 "$bin" session stop --all --yes >/dev/null 2>&1
        [[ -n "$pid" ]] && kill "$pid" 2>/dev/null
    fi
    tm kill-server 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# Rows of one process's CPU time per thread: "tid name ticks waitns" (utime+stime in clock
# ticks; time spent runnable but waiting for a CPU, ns, from schedstat); the first row,
# "0 (all) ticks 0", is the whole process's, exited threads included.
thread_ticks() {
    local pid="$1" t
    awk '{ s = $0; for (k = length(s); k > 0; k--) if (substr(s, k, 1) == ")") break
           split(substr(s, k + 2), f, " "); print 0, "(all)", f[12] + f[13], 0 }' "/proc/$pid/stat"
    for t in /proc/"$pid"/task/*; do
        [[ -r "$t/stat" ]] || continue
        # Field 2 (comm) may hold spaces: cut at the last ')'.
        awk -v tid="${t##*/}" -v wait="$(awk '{ print $2 }' "$t/schedstat" 2>/dev/null || echo 0)" '{
            s = $0; i = index(s, "(" ); j = 0
            for (k = length(s); k > 0; k--) if (substr(s, k, 1) == ")") { j = k; break }
            name = substr(s, i + 1, j - i - 1); rest = substr(s, j + 2)
            split(rest, f, " ")
            print tid, name, f[12] + f[13], wait
        }' "$t/stat"
    done
}

# CPU seconds per thread name between two thread_ticks dumps.
thread_cpu_delta() {
    python3 - "$1" "$2" "$(getconf CLK_TCK)" <<'EOF'
import sys, collections
def load(p):
    d = {}
    for line in open(p):
        tid, rest = line.split(" ", 1)
        name, ticks, wait = rest.rsplit(" ", 2)
        d[tid] = (name, int(ticks), int(wait))
    return d
a, b, hz = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
total = (b.pop("0")[1] - a.pop("0")[1]) / hz
per = collections.Counter()
waited = collections.Counter()
count = collections.Counter()
for tid, (name, t, w) in b.items():
    before = a.get(tid, (name, 0, 0))
    per[name] += (t - before[1]) / hz
    waited[name] += (w - before[2]) / 1e9
    count[name] += 1
for name, s in per.most_common():
    print(f"      {name:<16} {count[name]:>4} threads  {s:7.2f} s CPU, "
          f"{waited[name]:6.2f} s runnable waiting for a CPU")
print(f"      {'threads that ended':<29}{total - sum(per.values()):7.2f} s CPU "
      f"(the whole process: {total:.2f} s)")
EOF
}

# --- the flooded log ----------------------------------------------------------------------
python3 - "$tmp/log.txt" "$log_kb" <<'EOF'
import sys
path, kb = sys.argv[1], int(sys.argv[2])
LEVELS = ["\x1b[32mINFO \x1b[0m", "\x1b[1;33mWARN \x1b[0m", "\x1b[1;31mERROR\x1b[0m"]
out, size, n = [], 0, 0
while size < kb * 1024:
    line = ("\x1b[90m2025-01-01T00:00:%02d.%03dZ\x1b[0m %s \x1b[38;5;%dmworker::%d\x1b[0m "
            "request \x1b[38;2;%d;%d;%dm#%08x\x1b[0m %s\r\n") % (
        n % 60, n % 1000, LEVELS[n % 3], 17 + n % 200, n % 7, 100 + n % 156, 100 + (n * 7) % 156,
        100 + (n * 13) % 156, n, "中文日志 ok" if n % 5 == 0 else "served in 12 ms")
    b = line.encode()
    out.append(b)
    size += len(b)
    n += 1
open(path, "wb").write(b"".join(out))
EOF
flood=(sh -c "while :; do cat '$tmp/log.txt'; done")

run_load() { # mode ids extra-args...
    local mode="$1" ids="$2"
    shift 2
    python3 "$root/benches/flood_load.py" --mode "$mode" --clients "$clients" \
        --seconds "$seconds" --pause-ms "$pause_ms" --ids "$ids" "$@"
}

# --- ours ---------------------------------------------------------------------------------
if [[ " $modes " == *" socket "* || " $modes " == *" process "* ]]; then
    echo "== console2svg: $sessions flooding sessions" >&2
    "$bin" session list >/dev/null
    hpid="$(host_pid)"
    if [[ -n "${BASELINE:-}" ]]; then
        ids=()
        for ((k = 0; k < sessions; k++)); do
            ids+=("$("$bin" session start --width 100 --height 24 -- sleep 600 |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')")
        done
        echo "   baseline: $sessions idle sessions, socket, $clients clients for $seconds s…" >&2
        thread_ticks "$hpid" >"$tmp/ticks0"
        run_load socket "$(IFS=,; echo "${ids[*]}")" \
            --socket "$CONSOLE2SVG_RUNTIME_DIR/host.sock" >"$tmp/ours-baseline.json"
        thread_ticks "$hpid" >"$tmp/ticks1"
        thread_cpu_delta "$tmp/ticks0" "$tmp/ticks1" >&2
        echo "ours_baseline=$tmp/ours-baseline.json" >>"$results"
        "$bin" session stop --all --yes >/dev/null
    fi
    ids=()
    for ((k = 0; k < sessions; k++)); do
        ids+=("$("$bin" session start --width 100 --height 24 -- "${flood[@]}" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["sessionId"])')")
    done
    idlist="$(IFS=,; echo "${ids[*]}")"
    sleep "$warmup"
    for mode in socket process; do
        [[ " $modes " == *" $mode "* ]] || continue
        echo "   $mode: $clients clients for $seconds s…" >&2
        thread_ticks "$hpid" >"$tmp/ticks0"
        if [[ -n "$profile" && "$mode" == socket ]]; then
            perf record -F 499 -g -p "$hpid" -o "$tmp/perf.data" >/dev/null 2>&1 &
            perf_pid=$!
        fi
        run_load "$mode" "$idlist" --socket "$CONSOLE2SVG_RUNTIME_DIR/host.sock" --bin "$bin" \
            >"$tmp/ours-$mode.json"
        if [[ -n "${perf_pid:-}" ]]; then
            kill -INT "$perf_pid"
            wait "$perf_pid" || true
            perf_pid=
        fi
        thread_ticks "$hpid" >"$tmp/ticks1"
        echo "   host CPU by thread during the run:" >&2
        thread_cpu_delta "$tmp/ticks0" "$tmp/ticks1" >&2
        echo "ours_$mode=$tmp/ours-$mode.json" >>"$results"
    done
    echo "ours_threads=$(ls /proc/"$hpid"/task | wc -l)" >>"$results"
    echo "ours_rss_kb=$(awk '/^VmRSS:/ { print $2 }' /proc/"$hpid"/status)" >>"$results"
    if [[ -n "$profile" && -f "$tmp/perf.data" ]]; then
        echo "   perf: the host's top functions (self time) during the socket run:" >&2
        perf report -i "$tmp/perf.data" --no-children -g none --sort comm,sym --stdio \
            2>/dev/null | grep -E '^ +[0-9]' | head -30 >&2 || true
    fi
    echo "   stop --all under the flood…" >&2
    t0=${EPOCHREALTIME/./}
    set +e
    out="$(timeout 60 "$bin" session stop --all --yes)"
    code=$?
    set -e
    t1=${EPOCHREALTIME/./}
    stopped="$(python3 -c 'import json,sys
try:
    v = json.loads(sys.argv[1]); print(len(v.get("stopped", [])), len(v.get("failed", [])), v.get("status", "ok"))
except ValueError:
    print(0, 0, "garbled")' "$out")"
    echo "ours_stop_ms=$(((t1 - t0) / 1000))" >>"$results"
    echo "ours_stop=$code $stopped" >>"$results"
    kill "$hpid" 2>/dev/null || true
fi

# --- tmux ---------------------------------------------------------------------------------
if [[ " $modes " == *" tmux "* ]]; then
    echo "== tmux: $sessions flooding panes" >&2
    cat >"$tmp/tmux.conf" <<'EOF'
set -g status off
set -g history-limit 10000
set -g default-terminal "tmux-256color"
EOF
    tm -f "$tmp/tmux.conf" start-server \; set -g exit-empty off
    names=()
    for ((k = 0; k < sessions; k++)); do
        tm new-session -d -s "f$k" -x 100 -y 24 "${flood[@]}"
        names+=("f$k")
    done
    tpid="$(tm display -p '#{pid}')"
    sleep "$warmup"
    echo "   tmux: $clients clients for $seconds s…" >&2
    thread_ticks "$tpid" >"$tmp/ticks0"
    run_load tmux "$(IFS=,; echo "${names[*]}")" --tmux-socket "$tsock" >"$tmp/tmux.json"
    thread_ticks "$tpid" >"$tmp/ticks1"
    echo "   tmux server CPU during the run:" >&2
    thread_cpu_delta "$tmp/ticks0" "$tmp/ticks1" >&2
    echo "tmux=$tmp/tmux.json" >>"$results"
    echo "tmux_threads=$(ls /proc/"$tpid"/task | wc -l)" >>"$results"
    echo "tmux_rss_kb=$(awk '/^VmRSS:/ { print $2 }' /proc/"$tpid"/status)" >>"$results"
    t0=${EPOCHREALTIME/./}
    tm kill-server
    t1=${EPOCHREALTIME/./}
    echo "tmux_stop_ms=$(((t1 - t0) / 1000))" >>"$results"
fi

# --- results ------------------------------------------------------------------------------
python3 - "$results" "$sessions" "$clients" "$seconds" "$pause_ms" <<'EOF'
import json, sys
r = {}
for line in open(sys.argv[1]):
    k, v = line.rstrip("\n").split("=", 1)
    r[k] = v
n, m, t = sys.argv[2:5]
runs = []
for key, label in (("ours_baseline", "ours, socket, idle"), ("ours_socket", "ours, socket"),
                   ("ours_process", "ours, process"), ("tmux", "tmux")):
    if key in r:
        runs.append((label, json.load(open(r[key]))))
print()
print(f"flood: {n} sessions printing in a loop, {m} clients for {t} s, {sys.argv[5]} ms between "
      "a client's requests (latency ms: p50 / p99 / max; errors by kind)")
hdr = ("op", "run", "requests", "p50", "p99", "max", "errors", "target p99<=100, 0 errors")
rows = []
fmt = lambda x: "-" if x is None else f"{x:.1f}"
for op in ("list", "read", "send"):
    for label, doc in runs:
        s = doc["ops"][op]
        errs = sum(s["errors"].values())
        kinds = ",".join(f"{k}:{v}" for k, v in sorted(s["errors"].items())) or "0"
        ok = s["p99"] is not None and s["p99"] <= 100 and errs == 0
        met = "(peer)" if label == "tmux" else "(no flood)" if "idle" in label else (
            "MET" if ok else "MISSED")
        rows.append((op, label, str(s["n"]), fmt(s["p50"]), fmt(s["p99"]), fmt(s["max"]), kinds, met))
w = [max(len(x[i]) for x in rows + [hdr]) for i in range(len(hdr))]
for x in [hdr] + rows:
    print("  ".join(c.ljust(w[i]) for i, c in enumerate(x)))
print()
if "ours_stop" in r:
    code, stopped, failed, status = r["ours_stop"].split()
    print(f"stop --all under the flood: {r['ours_stop_ms']} ms, exit {code}, "
          f"{stopped} stopped, {failed} failed, status {status}"
          + (f"; tmux kill-server {r['tmux_stop_ms']} ms" if "tmux_stop_ms" in r else ""))
if "ours_threads" in r:
    print(f"host at the end: {r['ours_threads']} threads, {int(r['ours_rss_kb']) // 1024} MB RSS"
          + (f"; tmux server: {r['tmux_threads']} threads, {int(r['tmux_rss_kb']) // 1024} MB RSS"
             if "tmux_threads" in r else ""))
EOF
