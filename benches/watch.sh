#!/usr/bin/env bash
# `termio sessions watch` push latency (no target in the issue; a figure for the record):
# the time from a status change to its watch line. Each round sends `sleep 0.3` to a plain
# terminal session: a command starts (status working) and ends by itself 300 ms later
# (status done). Measured per round, from just before the `send` to the moment
# the `working` line and the `done` line reach a running `watch --json --state working,done`;
# the `done` figure minus 300 ms is the push latency of an end the watch did not cause.
#
# Usage: bash benches/watch.sh        Knob: ROUNDS (20).
#
# Uses the release binaries and a private runtime directory, HOME and XDG dirs; the session,
# the watch and the host are stopped on exit.
set -euo pipefail

rounds="${ROUNDS:-20}"
cd "$(dirname "$0")/.."
root="$PWD"
echo "building release binaries (cargo build --release)…" >&2
cargo build --release --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
[[ "$target_dir" = /* ]] || target_dir="$root/$target_dir"
termio="$target_dir/release/termio"
[[ -x "$termio" ]] || { echo "error: $termio not found after the build" >&2; exit 1; }

work="$(mktemp -d)"
export CONSOLE2SVG_RUNTIME_DIR="$work/rt" HOME="$work/home" XDG_STATE_HOME="$work/state" \
    XDG_CONFIG_HOME="$work/config" SHELL=bash
mkdir -p "$work/rt" "$work/home" "$work/state" "$work/config" "$work/p"
cd "$work/p"
watch_pid=""
cleanup() {
    [[ -n "$watch_pid" ]] && kill "$watch_pid" 2>/dev/null || true
    "$target_dir/release/console2svg" session stop --all --yes >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

link="$("$termio" sessions run 'true' --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"])')"
sleep 1.5 # the shell is up and `true` has run: status done

fifo="$work/watch.out"
"$termio" sessions watch --json --no-snapshot --state working,done >"$fifo" &
watch_pid=$!
sleep 0.5

wait_line() { # $1: status, $2: line count before; prints the ms when it appeared
    while :; do
        if [[ "$(grep -c "\"status\":\"$1\"" "$fifo" || true)" -gt "$2" ]]; then
            now_ms
            return
        fi
        sleep 0.002
    done
}

working=()
done_=()
for ((i = 0; i < rounds; i++)); do
    w0="$(grep -c '"status":"working"' "$fifo" || true)"
    d0="$(grep -c '"status":"done"' "$fifo" || true)"
    t0="$(now_ms)"
    "$termio" sessions send "$link" "sleep 0.3" >/dev/null
    tw="$(wait_line working "$w0")"
    td="$(wait_line done "$d0")"
    working+=($((tw - t0)))
    done_+=($((td - t0 - 300)))
    sleep 0.3
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "rounds: $rounds"
echo "send → working line: median $(median "${working[@]}") ms (includes the termio send process)"
echo "command end → done line: median $(median "${done_[@]}") ms (after the 300 ms sleep)"
