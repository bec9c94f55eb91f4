"""Drives `console2svg mcp` from the official Python MCP SDK's stdio client (tests/mcp.rs runs it).

Usage: client.py <console2svg binary> <work dir>; the environment carries CONSOLE2SVG_RUNTIME_DIR
(a private host). Exits 0 when every check passed; an assertion's traceback otherwise.
"""

import asyncio
import base64
import json
import os
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

BIN, WORK = sys.argv[1], sys.argv[2]
ENV = {k: v for k, v in os.environ.items() if k.startswith("CONSOLE2SVG_")}
ENV["HOME"] = WORK
ENV["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
EXPECTED_TOOLS = {
    "termio_list",
    "termio_run",
    "termio_spawn",
    "termio_send",
    "termio_read",
    "termio_close",
    "session_start",
    "session_list",
    "session_read",
    "session_wait",
    "session_send",
    "session_resize",
    "session_capture",
    "session_stop",
    "capture",
}


def svg_text(path):
    """The text an SVG draws: each <text> element's characters (one glyph an element)."""
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    return "\n".join("".join(t.itertext()) for t in root.iter(ns + "text"))


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def png_size(data: bytes):
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    assert data[12:16] == b"IHDR", data[12:16]
    return struct.unpack(">II", data[16:24])


def server():
    return StdioServerParameters(command=BIN, args=["mcp"], env=ENV, cwd=WORK)


async def call(session, name, args):
    """A successful tool call's structured content."""
    result = await session.call_tool(name, args)
    assert not result.is_error, (name, args, result.content)
    return result


async def fails(session, name, args, code):
    """A tool error with `code` in its structured envelope."""
    result = await session.call_tool(name, args)
    assert result.is_error, (name, args, result)
    envelope = result.structured_content
    assert envelope["status"] == "error", envelope
    assert envelope["error"]["code"] == code, (code, envelope)
    return envelope


def images(result):
    return [base64.b64decode(c.data) for c in result.content if c.type == "image" and c.mime_type == "image/png"]


def disconnect_mid_wait(session_id):
    """A second client (raw JSON-RPC over the server's stdio) starts a wait, then goes away.

    The server must end (closing its waiter) without touching the session."""
    proc = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV, cwd=WORK)
    send = lambda msg: (proc.stdin.write((json.dumps(msg) + "\n").encode()), proc.stdin.flush())
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leaver", "version": "1"}}})
    assert json.loads(proc.stdout.readline())["id"] == 1
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "session_wait", "arguments": {"id": session_id, "text": "never on this screen", "timeout": 120}}})
    time.sleep(0.7)
    proc.stdin.close()
    proc.stdout.close()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the MCP server kept running after its client disconnected mid-wait")


UPDATES = []


async def on_message(message):
    """Records the URIs of resource-updated notifications."""
    message = getattr(message, "root", message)
    if getattr(message, "method", None) == "notifications/resources/updated":
        UPDATES.append(str(message.params.uri))


async def keyboard(session):
    """session_send against the keyboard reader: a kitty-only key once the program pushed the
    protocol, after a paste and the quiet gap the call asked for."""
    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixture", "key_reader.py")
    started = await call(session, "session_start", {
        "command": [sys.executable, reader, "--kitty", "1", "--bracketed-paste"], "width": 120, "height": 30})
    sid = started.structured_content["sessionId"]
    await call(session, "session_wait", {"id": sid, "text": "FLAGS 1", "timeout": 20})
    shift_enter = b"\x1b[13;2u".hex()
    await call(session, "session_send", {
        "id": sid, "inputs": [{"paste": "x"}, {"keys": "Shift+Enter"}], "gap": "300ms"})
    await call(session, "session_wait", {"id": sid, "text": shift_enter, "timeout": 20})
    text = (await call(session, "session_read", {"id": sid})).structured_content["screen"]["text"]
    reads = [line.split() for line in text.splitlines() if line.startswith("+")]
    assert reads[-1][1] == shift_enter, reads
    assert int(reads[-1][0][1:]) >= 200, f"Shift+Enter came too soon after the paste: {reads}"
    await fails(session, "session_send", {"id": sid, "inputs": [{"keys": "a"}], "gap": "11s"}, "invalid_request")
    await call(session, "session_stop", {"id": sid})
    log("keyboard: Shift+Enter after a paste and its gap", reads[-1])


async def resources(session, sid):
    """The screen resource: listed, read, and a subscription told of a change after a send."""
    uri = f"console2svg://session/{sid}/screen"
    listed = await session.list_resources()
    assert uri in [str(r.uri) for r in listed.resources], listed
    contents = (await session.read_resource(uri)).contents
    assert "hello from mcp" in contents[0].text, contents
    await session.subscribe_resource(uri)
    await asyncio.sleep(0.3)
    UPDATES.clear()
    await call(session, "session_send", {"id": sid, "inputs": [{"keys": "o"}, {"text": "second line"}, {"keys": "Escape"}]})
    deadline = time.monotonic() + 15
    while uri not in UPDATES and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert uri in UPDATES, f"no notifications/resources/updated for {uri}: {UPDATES}"
    assert "second line" in (await session.read_resource(uri)).contents[0].text
    await session.unsubscribe_resource(uri)
    try:
        await session.read_resource("console2svg://session/s_00000000000000000000000000000000/screen")
        raise AssertionError("a missing session's screen was read")
    except MCPError:
        pass
    log("resources: updated after a send")


async def termio(session):
    """termio's verbs for the server's project (its working directory)."""
    listed = await call(session, "termio_list", {})
    # The vim session runs in this directory too: termio sees the host's sessions of the project.
    assert isinstance(listed.structured_content["sessions"], list), listed.structured_content
    # termio's watch is a resource: subscribed, each status change is a notification.
    watch = "console2svg://termio/watch"
    assert watch in [str(r.uri) for r in (await session.list_resources()).resources]
    await session.subscribe_resource(watch)
    UPDATES.clear()
    ran = await call(session, "termio_run", {"command": "echo termio-mcp-$((6*7))", "wait": True, "timeoutMs": 30000})
    target = ran.structured_content["target"]
    assert ran.structured_content["status"] == "done", ran.structured_content
    deadline = time.monotonic() + 15
    events = []
    while time.monotonic() < deadline:
        if watch in UPDATES:
            doc = json.loads((await session.read_resource(watch)).contents[0].text)
            events = [e for e in doc["events"] if e["link"] == target]
            if any(e["status"] == "done" for e in events):
                break
        await asyncio.sleep(0.1)
    assert watch in UPDATES, f"no notifications/resources/updated for {watch}: {UPDATES}"
    assert any(e["status"] == "done" for e in events), doc
    assert [e["seq"] for e in doc["events"]] == sorted(e["seq"] for e in doc["events"]), doc
    assert target in [s["link"] for s in doc["sessions"]], doc
    await session.unsubscribe_resource(watch)
    read = await call(session, "termio_read", {"target": target})
    assert "termio-mcp-42" in json.dumps(read.structured_content), read.structured_content
    sent = await call(session, "termio_send", {"target": target, "text": "echo again-$((2*3))", "wait": True, "timeoutMs": 30000})
    assert "again-6" in json.dumps((await call(session, "termio_read", {"target": target})).structured_content), sent
    await call(session, "termio_close", {"targets": [target]})
    envelope = await fails(session, "termio_read", {"target": target}, "not_found")
    assert envelope["termio"]["ok"] is False, envelope
    await fails(session, "termio_send", {"target": "no-such-session", "text": "x"}, "not_found")
    log("termio: watch resource, run, read, send, close")


async def main():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            assert init.server_info.name == "console2svg", init.server_info
            assert init.capabilities.tools is not None
            assert init.capabilities.resources is not None and init.capabilities.resources.subscribe

            tools = (await session.list_tools()).tools
            names = {t.name for t in tools}
            assert EXPECTED_TOOLS <= names, names
            for tool in tools:
                assert tool.description and len(tool.description) > 40, tool.name
                schema = tool.input_schema
                jsonschema.validators.validator_for(schema).check_schema(schema)
                assert schema["type"] == "object", (tool.name, schema)
            log("tools:", sorted(names))

            # vim in a session.
            started = await call(session, "session_start", {
                "command": ["vim", "-u", "NONE", "-i", "NONE", "-N", "-n"], "width": 80, "height": 20})
            sid = started.structured_content["sessionId"]
            await call(session, "session_wait", {"id": sid, "text": "~", "timeout": 20})
            sent = await call(session, "session_send", {
                "id": sid, "inputs": [{"keys": "i"}, {"text": "hello from mcp"}, {"keys": "Escape"}]})
            version = sent.structured_content["version"]
            waited = await call(session, "session_wait", {
                "id": sid, "text": "hello from mcp", "since": version, "timeout": 20, "stableFor": "100ms"})
            assert waited.structured_content["result"] == "matched", waited.structured_content
            read = await call(session, "session_read", {"id": sid})
            assert "hello from mcp" in json.dumps(read.structured_content), read.structured_content
            listed = await call(session, "session_list", {})
            assert sid in json.dumps(listed.structured_content), listed.structured_content

            await resources(session, sid)
            await keyboard(session)

            # The picture: a PNG as image content, the size the CLI renders the same screen at.
            shot = await call(session, "session_capture", {"id": sid, "theme": ["dracula"]})
            pngs = images(shot)
            assert len(pngs) == 1, shot.content
            width, height = png_size(pngs[0])
            doc = shot.structured_content
            assert (doc["png"]["width"], doc["png"]["height"]) == (width, height), doc
            assert os.path.isfile(doc["svg"]["path"]), doc
            assert "hello" in svg_text(doc["svg"]["path"])
            cli_png = os.path.join(WORK, "cli.png")
            subprocess.run([BIN, "session", "capture", sid, "-o", cli_png, "--theme", "dracula"],
                           env=ENV, cwd=WORK, check=True, stdout=subprocess.DEVNULL)
            with open(cli_png, "rb") as f:
                assert png_size(f.read()) == (width, height), "MCP and CLI pictures differ in size"
            doubled = images(await call(session, "session_capture", {"id": sid, "scale": 2}))[0]
            assert png_size(doubled) == (2 * width, 2 * height), png_size(doubled)
            log("capture:", width, "x", height)

            # Errors from real triggers, with our stable codes.
            await fails(session, "session_read", {"id": "s_00000000000000000000000000000000"}, "session_not_found")
            await fails(session, "session_send", {"id": sid, "inputs": [{"keys": "NoSuchKey"}]}, "unsupported_key")
            await fails(session, "session_wait", {"id": sid, "text": "absent text", "timeout": "300ms"}, "wait_timeout")
            await fails(session, "session_wait", {"id": sid, "regex": "([", "timeout": 1}, "invalid_condition")
            await fails(session, "session_start", {"command": ["true"], "width": 0}, "invalid_request")
            await fails(session, "session_start", {"command": ["true"], "scrollback": 100001}, "invalid_request")
            await fails(session, "session_start", {"command": ["/nonexistent/program"]}, "session_not_started")
            short = await call(session, "session_start", {"command": ["sh", "-c", "sleep 0.5"]})
            ended = await fails(session, "session_wait", {
                "id": short.structured_content["sessionId"], "text": "never printed", "timeout": 20}, "session_exited")
            assert "screen" in ended, ended
            await call(session, "session_stop", {"id": short.structured_content["sessionId"]})
            await fails(session, "session_capture", {"id": sid, "forecolor": "not-a-colour"}, "invalid_request")
            # A malformed call (no id) is refused by the protocol layer; the server goes on.
            try:
                result = await session.call_tool("session_read", {})
                assert result.is_error, result
            except MCPError:
                pass

            # Another client disconnecting mid-wait leaves the host and this session alone.
            disconnect_mid_wait(sid)
            again = await call(session, "session_read", {"id": sid})
            assert "hello from mcp" in json.dumps(again.structured_content)
            assert again.structured_content["state"] == "running", again.structured_content

            await termio(session)

            # One-shot capture: text + picture, no session left behind.
            one = await call(session, "capture", {"command": ["printf 'one shot\\n'"], "width": 30, "height": 4})
            assert one.structured_content["status"] == "completed", one.structured_content
            assert "one shot" in one.structured_content["screen"]["text"]
            assert png_size(images(one)[0]) == (one.structured_content["png"]["width"],
                                                one.structured_content["png"]["height"])

            await call(session, "session_stop", {"id": sid})
            await fails(session, "session_read", {"id": sid}, "session_not_found")
    print("ok")


asyncio.run(main())
