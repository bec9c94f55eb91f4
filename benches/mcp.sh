#!/usr/bin/env bash
# MCP tool-call round trips measured from the official Python MCP SDK's stdio client (issue 18,
# "Benchmarks"), over RUNS calls each against one `console2svg mcp` server:
#
#   session_read              a 100×30 screen of text.               Target: p50 ≤ 3 ms.
#   send→wait→matched         session_send of a line to `cat`, then session_wait for it with
#                             `since` the send's version.             Target: p50 ≤ 10 ms.
#   session_capture           100×30, PNG image content + SVG file.  Target: p50 ≤ 40 ms.
#
# Usage: bash benches/mcp.sh [BINARY]
#   BINARY defaults to the release build (built first). Python: target/mcp-venv (see README) or
#   MCP_PYTHON. Knob: RUNS (200).
# Uses a private runtime directory (its own host); the session is stopped on exit. Figures on a
# shared machine are rough.
set -euo pipefail

cd "$(dirname "$0")/.."
runs="${RUNS:-200}"
python="${MCP_PYTHON:-target/mcp-venv/bin/python}"
[[ -x "$python" ]] || { echo "error: no Python with the MCP SDK at $python (see README)" >&2; exit 1; }
if [[ $# -ge 1 ]]; then
    bin="$(realpath "$1")"
else
    cargo build --release --quiet
    bin="$(realpath target/release/console2svg)"
fi
work="$(mktemp -d)"
trap 'CONSOLE2SVG_RUNTIME_DIR="$work/rt" "$bin" session stop --all --yes >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export CONSOLE2SVG_RUNTIME_DIR="$work/rt" CONSOLE2SVG_HOST_IDLE_SECS=5

"$python" - "$bin" "$work" "$runs" <<'PY'
import asyncio, os, statistics, sys, time
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN, WORK, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
ENV = {k: v for k, v in os.environ.items() if k.startswith("CONSOLE2SVG_")} | {"PATH": os.environ["PATH"], "HOME": WORK}


def report(name, samples, target):
    samples = sorted(samples)
    p = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] * 1000
    print(f"{name:24} p50 {p(0.5):7.2f} ms   p90 {p(0.9):7.2f} ms   p99 {p(0.99):7.2f} ms   (target p50 {target}, {len(samples)} calls)")


async def timed(session, name, args):
    t = time.perf_counter()
    result = await session.call_tool(name, args)
    elapsed = time.perf_counter() - t
    assert not result.is_error, (name, result.content)
    return elapsed, result


async def main():
    params = StdioServerParameters(command=BIN, args=["mcp"], env=ENV, cwd=WORK)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            _, started = await timed(s, "session_start", {"command": ["cat"], "width": 100, "height": 30})
            sid = started.structured_content["sessionId"]
            for i in range(40):
                await timed(s, "session_send", {"id": sid, "inputs": [{"text": f"line {i} " + "x" * 60}, {"keys": "Enter"}]})
            await timed(s, "session_wait", {"id": sid, "text": "line 39", "timeout": 10})
            reads = [(await timed(s, "session_read", {"id": sid}))[0] for _ in range(RUNS)]
            trips = []
            for i in range(RUNS):
                t = time.perf_counter()
                _, sent = await timed(s, "session_send", {"id": sid, "inputs": [{"text": f"ping {i}"}, {"keys": "Enter"}]})
                await timed(s, "session_wait", {"id": sid, "text": f"ping {i}", "since": sent.structured_content["version"], "timeout": 10})
                trips.append(time.perf_counter() - t)
            captures = [(await timed(s, "session_capture", {"id": sid}))[0] for _ in range(RUNS)]
            await timed(s, "session_stop", {"id": sid})
    report("session_read", reads, "≤ 3 ms")
    report("send→wait→matched", trips, "≤ 10 ms")
    report("session_capture 100×30", captures, "≤ 40 ms")


asyncio.run(main())
PY
