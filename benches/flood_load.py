"""Load clients for benches/flood.sh: M concurrent clients issuing list/read/send for T seconds
against sessions that flood output, recording each request's latency and checking each reply.

Modes:
  socket   speaks the host protocol on its Unix socket (one request per connection, one JSON
           line back): measures the host, not process start.
  process  runs `console2svg session list|read|send` as a whole process each time.
  tmux     runs `tmux list-sessions|capture-pane -p|send-keys` against a tmux server.

Errors counted per kind: `timeout` (no reply within 5 s, the CLI's bound), an error envelope's
code (`host_unavailable`, ...), `garbled` (not one JSON document), `crossed` (a reply about
another session than the one asked), `short-list` (a list missing running sessions),
`exit-N` (a process that failed without an envelope).

Prints one JSON document: {"mode", "seconds", "clients", "ops": {op: {"n", "p50", "p99",
"max", "errors": {kind: n}}}} with latencies in ms.
"""

import argparse
import asyncio
import json
import random
import time

TIMEOUT = 5.0
OPS = ("list", "read", "send")


def percentile(values, q):
    if not values:
        return None
    v = sorted(values)
    i = min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))
    return v[i]


class Recorder:
    def __init__(self):
        self.lat = {op: [] for op in OPS}
        self.err = {op: {} for op in OPS}

    def add(self, op, ms, error=None):
        self.lat[op].append(ms)
        if error:
            self.err[op][error] = self.err[op].get(error, 0) + 1

    def report(self):
        out = {}
        for op in OPS:
            lat = self.lat[op]
            out[op] = {
                "n": len(lat),
                "p50": percentile(lat, 0.50),
                "p99": percentile(lat, 0.99),
                "max": max(lat) if lat else None,
                "errors": self.err[op],
            }
        return out


def check_reply(op, sid, text, sessions):
    """The error kind of a reply document, or None when it is right."""
    try:
        v = json.loads(text)
    except ValueError:
        return "garbled"
    if not isinstance(v, dict):
        return "garbled"
    if v.get("status") == "error":
        return (v.get("error") or {}).get("code", "garbled")
    if op == "list":
        rows = v.get("sessions")
        if not isinstance(rows, list):
            return "garbled"
        if len([r for r in rows if r.get("state") == "running"]) < sessions:
            return "short-list"
        return None
    if v.get("sessionId") != sid:
        return "crossed"
    if op == "read" and not isinstance((v.get("screen") or {}).get("text"), str):
        return "garbled"
    if op == "send" and not isinstance(v.get("version"), int):
        return "garbled"
    return None


async def socket_request(path, op, sid):
    if op == "list":
        req = {"op": "list", "all": False}
    elif op == "read":
        req = {"op": "read", "id": sid, "structured": False}
    else:
        req = {"op": "send", "id": sid, "inputs": [{"text": "x"}]}
    reader, writer = await asyncio.open_unix_connection(path, limit=64 * 1024 * 1024)
    try:
        writer.write((json.dumps(req) + "\n").encode())
        await writer.drain()
        line = await reader.readline()
        rest = await reader.read()
        if rest.strip():
            return line.decode(errors="replace") + "\0garbled"
        return line.decode(errors="replace")
    finally:
        writer.close()


async def process_request(argv):
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), TIMEOUT * 2)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode, out.decode(errors="replace")


async def client(args, ids, rec, deadline, n):
    rnd = random.Random(n)
    i = n % len(OPS)
    while time.monotonic() < deadline:
        op = OPS[i % len(OPS)]
        i += 1
        sid = rnd.choice(ids)
        t0 = time.monotonic()
        error = None
        try:
            if args.mode == "socket":
                text = await asyncio.wait_for(socket_request(args.socket, op, sid), TIMEOUT)
                error = "garbled" if text.endswith("\0garbled") else check_reply(
                    op, sid, text, len(ids))
            elif args.mode == "process":
                argv = [args.bin, "session", op]
                if op == "read":
                    argv.append(sid)
                elif op == "send":
                    argv += [sid, "--text", "x"]
                code, text = await process_request(argv)
                error = check_reply(op, sid, text, len(ids))
                if error is None and code != 0:
                    error = f"exit-{code}"
            else:
                tm = ["tmux", "-L", args.tmux_socket]
                if op == "list":
                    argv = tm + ["list-sessions"]
                elif op == "read":
                    argv = tm + ["capture-pane", "-p", "-t", sid]
                else:
                    argv = tm + ["send-keys", "-t", sid, "-l", "x"]
                code, text = await process_request(argv)
                if code != 0:
                    error = f"exit-{code}"
                elif op == "list" and len(text.splitlines()) < len(ids):
                    error = "short-list"
        except asyncio.TimeoutError:
            error = "timeout"
        except OSError as e:
            error = f"os-{e.errno}"
        rec.add(op, (time.monotonic() - t0) * 1000, error)
        if args.pause_ms > 0:
            await asyncio.sleep(args.pause_ms / 1000)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("socket", "process", "tmux"), required=True)
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--pause-ms", type=float, default=0,
                   help="each client's pause between its requests (0: a closed loop)")
    p.add_argument("--ids", required=True, help="session ids (tmux: session names), comma-separated")
    p.add_argument("--socket", help="the host's socket (socket mode)")
    p.add_argument("--bin", help="the console2svg binary (process mode)")
    p.add_argument("--tmux-socket", help="tmux -L name (tmux mode)")
    args = p.parse_args()
    ids = args.ids.split(",")
    rec = Recorder()
    deadline = time.monotonic() + args.seconds
    await asyncio.gather(*(client(args, ids, rec, deadline, n) for n in range(args.clients)))
    print(json.dumps({"mode": args.mode, "seconds": args.seconds, "clients": args.clients,
                      "ops": rec.report()}))


asyncio.run(main())
