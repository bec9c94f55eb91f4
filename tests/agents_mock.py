#!/usr/bin/env python3
"""A loopback mock of the model APIs Claude Code, Codex and Gemini CLI call, for
tests/termio_real_agents.rs. Standard library only.

Usage: agents_mock.py PORT_FILE LOG_FILE

Listens on 127.0.0.1 on a free port, writes the port to PORT_FILE once it accepts connections,
and appends every request it gets to LOG_FILE as one JSON line ({"method", "path", "headers",
"body"}). Serves:

- Anthropic Messages (`POST /v1/messages`, streamed as server-sent events or one JSON body),
  and `POST /v1/messages/count_tokens`;
- OpenAI Responses (`POST /v1/responses` or `/responses`, streamed as server-sent events);
- Gemini (`POST /v1beta/models/<model>:streamGenerateContent` and `:generateContent`,
  `:countTokens`).

What it answers is scripted by the newest user text in the request:

- it contains `MOCK_FAIL`: HTTP 400 with an `invalid_request_error` whose message is
  `mock failure: the model refused` (an error no client retries);
- it contains `MOCK_TOOL` and the request carries no tool result yet: a tool call that writes
  `hello.txt` (Claude: `Write`; Codex: `exec_command`, escalated out of its sandbox, as a function
  call or inside its code mode's `exec`; Gemini: `write_file`),
  which asks for permission;
- it contains `MOCK_SLOW`: as below, after 3 seconds (a turn long enough to see working);
- it contains `MOCK_HANG`: as below, after 30 seconds (a turn to interrupt);
- it contains `MOCK_ASK`: a reply that ends with a question and numbered options
  (`ASK_REPLY`); `MOCK_YN`: one that ends with a `[y/N]` question (`YN_REPLY`);
- otherwise: the text `MOCK REPLY: <the user text, reversed>` (after a tool result:
  `MOCK REPLY: tool done`).

Anything else gets 404 with a JSON error (and is logged, so a test can see what a program
asked for).
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAIL = "MOCK_FAIL"
SLOW = "MOCK_SLOW"
HANG = "MOCK_HANG"
TOOL = "MOCK_TOOL"
ASK = "MOCK_ASK"
YN = "MOCK_YN"
FAIL_MESSAGE = "mock failure: the model refused"
ASK_REPLY = (
    "I can fix the greeting in two ways.\n\n"
    "Which option do you want?\n\n"
    "1) Keep the old file and add a new one\n"
    "2) Replace the old file"
)
YN_REPLY = "The file hello.txt exists already.\n\nOverwrite hello.txt? [y/N]"

LOG_LOCK = threading.Lock()
COUNTER = [0]


def next_id():
    with LOG_LOCK:
        COUNTER[0] += 1
        return COUNTER[0]


def text_of(content):
    """The text of a message content (a string, or a list of parts)."""
    if isinstance(content, str):
        return content
    out = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    out.append(part["text"])
                elif part.get("type") == "input_text":
                    out.append(part.get("text", ""))
    return "\n".join(out)


def anthropic_last_user(body):
    """(newest user text, whether the newest user turn carries a tool result)."""
    for msg in reversed(body.get("messages", [])):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        has_result = isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "tool_result" for p in content
        )
        # Claude Code appends reminders as extra text parts; the prompt is the last text part
        # that is not a <system-reminder>.
        texts = []
        if isinstance(content, str):
            texts = [content]
        elif isinstance(content, list):
            texts = [
                p.get("text", "")
                for p in content
                if isinstance(p, dict) and p.get("type") == "text"
            ]
        texts = [t for t in texts if not t.lstrip().startswith("<system-reminder>")]
        return (texts[-1] if texts else ""), has_result
    return "", False


def openai_last_user(body):
    items = body.get("input", [])
    if isinstance(items, str):
        return items, False
    has_result = False
    for item in reversed(items):
        t = item.get("type")
        if t in ("function_call_output", "custom_tool_call_output"):
            has_result = True
            continue
        if item.get("role") == "user":
            text = text_of(item.get("content"))
            if text.lstrip().startswith("<"):
                # Environment context and instructions blocks are not the prompt.
                continue
            return text, has_result
    return "", has_result


def gemini_last_user(body):
    for c in reversed(body.get("contents", [])):
        if c.get("role") != "user":
            continue
        parts = c.get("parts", [])
        if any("functionResponse" in p for p in parts):
            return "", True
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
        return (texts[-1] if texts else ""), False
    return "", False


def decide(text, has_result):
    """`("fail", None)`, `("tool", None)` or `("text", reply)`."""
    if FAIL in text:
        return "fail", None
    if SLOW in text and not has_result:
        time.sleep(3)
    if HANG in text and not has_result:
        time.sleep(30)
    if has_result:
        return "text", "MOCK REPLY: tool done"
    if TOOL in text:
        return "tool", None
    if ASK in text:
        return "text", ASK_REPLY
    if YN in text:
        return "text", YN_REPLY
    return "text", "MOCK REPLY: " + text.strip()[::-1]


def fill_schema(schema):
    """A value of a JSON schema (Gemini's upper-case type names too): objects with every
    property, `mock` strings, 10 for numbers, false, empty arrays."""
    if not isinstance(schema, dict):
        return {}
    t = str(schema.get("type", "object")).lower()
    if t == "object":
        props = schema.get("properties") or {}
        return {k: fill_schema(v) for k, v in props.items()}
    if t in ("integer", "number"):
        return 10
    if t == "boolean":
        return False
    if t == "array":
        return []
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    return "mock"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None

    def log_message(self, fmt, *args):  # quiet stderr
        pass

    def _log(self, body):
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
        }
        with LOG_LOCK:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def _read_body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _json(self, status, doc):
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events):
        """Sends `(event name or None, data dict)` pairs as one server-sent-event stream."""
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        data = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._log(None)
        self._json(404, {"error": {"message": "not mocked: GET " + self.path}})

    def do_HEAD(self):
        self._log(None)
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        body = self._read_body()
        self._log(body)
        path = self.path.split("?")[0]
        if not isinstance(body, dict):
            body = {}
        if path.endswith("/v1/messages/count_tokens"):
            return self._json(200, {"input_tokens": 10})
        if path.endswith("/v1/messages"):
            return self.anthropic(body)
        if path.endswith("/responses"):
            return self.openai(body)
        if ":countTokens" in path:
            return self._json(200, {"totalTokens": 10})
        if ":streamGenerateContent" in path or ":generateContent" in path:
            return self.gemini(body, stream=":streamGenerateContent" in path)
        self._json(404, {"error": {"message": "not mocked: POST " + self.path}})

    # Anthropic Messages API.
    def anthropic(self, body):
        text, has_result = anthropic_last_user(body)
        kind, reply = decide(text, has_result)
        if kind == "fail":
            return self._json(
                400,
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": FAIL_MESSAGE},
                },
            )
        n = next_id()
        model = body.get("model", "mock")
        if kind == "tool":
            block = {
                "type": "tool_use",
                "id": f"toolu_mock{n}",
                "name": "Write",
                "input": {},
            }
            args = {"file_path": "hello.txt", "content": "hello\n"}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
            stop = "tool_use"
            full = dict(block, input=args)
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": reply}
            stop = "end_turn"
            full = {"type": "text", "text": reply}
        usage = {"input_tokens": 10, "output_tokens": 5}
        message = {
            "id": f"msg_mock{n}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            return self._json(
                200, dict(message, content=[full], stop_reason=stop)
            )
        self._sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": block},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    # OpenAI Responses API (streamed).
    def openai(self, body):
        text, has_result = openai_last_user(body)
        kind, reply = decide(text, has_result)
        if kind == "fail":
            return self._json(
                400,
                {
                    "error": {
                        "type": "invalid_request_error",
                        "code": "invalid_request",
                        "message": FAIL_MESSAGE,
                    }
                },
            )
        n = next_id()
        rid = f"resp_mock{n}"
        if kind == "tool":
            # Escalated (outside the sandbox), so Codex asks the user first under its
            # approval policy `on-request` (the default in a trusted folder).
            args = {
                "cmd": "echo hello > hello.txt",
                "sandbox_permissions": "require_escalated",
                "justification": "Do you want to write hello.txt?",
            }
            names = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
            if "exec_command" in names:
                item = {
                    "type": "function_call",
                    "id": f"fc_mock{n}",
                    "call_id": f"call_mock{n}",
                    "name": "exec_command",
                    "arguments": json.dumps(args),
                    "status": "completed",
                }
            else:
                # Codex's code mode offers one freeform tool, `exec` (JavaScript calling
                # its nested tools, `exec_command` among them).
                item = {
                    "type": "custom_tool_call",
                    "id": f"ctc_mock{n}",
                    "call_id": f"call_mock{n}",
                    "name": "exec",
                    "input": f"await tools.exec_command({json.dumps(args)});",
                    "status": "completed",
                }
        else:
            item = {
                "type": "message",
                "id": f"msg_mock{n}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply, "annotations": []}],
            }
        response = {"id": rid, "object": "response", "status": "in_progress", "output": []}
        events = [
            ("response.created", {"type": "response.created", "response": response}),
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": 0, "item": item},
            ),
        ]
        if kind == "text":
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": reply,
                    },
                )
            )
        events += [
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": dict(
                        response,
                        status="completed",
                        output=[item],
                        usage={
                            "input_tokens": 10,
                            "input_tokens_details": {"cached_tokens": 0},
                            "output_tokens": 5,
                            "output_tokens_details": {"reasoning_tokens": 0},
                            "total_tokens": 15,
                        },
                    ),
                },
            ),
        ]
        self._sse(events)

    # Gemini generateContent / streamGenerateContent.
    def gemini(self, body, stream):
        text, has_result = gemini_last_user(body)
        kind, reply = decide(text, has_result)
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json" and kind != "fail":
            # The CLI's own helper calls (model routing, next-speaker checks) want JSON of a
            # schema: every property filled with a plain value.
            kind, reply = "text", json.dumps(fill_schema(config.get("responseJsonSchema")))
        if kind == "fail":
            return self._json(
                400,
                {
                    "error": {
                        "code": 400,
                        "status": "INVALID_ARGUMENT",
                        "message": FAIL_MESSAGE,
                    }
                },
            )
        if kind == "tool":
            part = {
                "functionCall": {
                    "name": "write_file",
                    "args": {"file_path": "hello.txt", "content": "hello\n"},
                }
            }
        else:
            part = {"text": reply}
        doc = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [part]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "mock",
        }
        if not stream:
            return self._json(200, doc)
        if "alt=sse" in self.path:
            return self._sse([(None, doc)])
        return self._json(200, [doc])


def main():
    port_file, log_file = sys.argv[1], sys.argv[2]
    Handler.log_path = log_file
    open(log_file, "a").close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    import os

    os.replace(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
