"""An OpenAI-compatible server around the transformers engine (``tfengine``), speaking the
part of vLLM's protocol that the served mode uses:

    GET  /health          200 once the model is loaded (the port opens only then)
    GET  /v1/models       the model folder as the one model
    POST /v1/completions  prompt as token ids or text (or a list of prompts: one choice each),
                          max_tokens, stream (server-sent events, usage in the last chunk
                          when stream_options.include_usage), ignore_eos, token_ids in every
                          choice; not streamed: stop strings, echo and logprobs (what
                          lm-eval's local-completions asks: ``CompletionRequest``); decoding
                          is greedy (temperature and other sampling fields are not honoured:
                          the reply's ``system_fingerprint`` says so)
    GET  /metrics         Prometheus counters of prompt and generated tokens and requests

Standard library HTTP only (``http.server``), so it runs in any image that has torch and
transformers:

    CHIPPERF_DEVICE=cpu python -m chipperf_runtime.inference.llm.served.tfserver \\
        --model DIR --host 127.0.0.1 --port 8000 --dtype float32
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Sequence

PROMPT_TOKENS = "chipperf:prompt_tokens_total"
GENERATION_TOKENS = "chipperf:generation_tokens_total"
REQUESTS = "chipperf:requests_total"
PRECISIONS = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
FINGERPRINT = "chipperf-transformers-greedy"


@dataclass
class Counters:
    values: dict = field(default_factory=lambda: {PROMPT_TOKENS: 0, GENERATION_TOKENS: 0,
                                                  REQUESTS: 0})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, amount: int) -> None:
        with self.lock:
            self.values[name] += amount

    def exposition(self, model: str) -> str:
        with self.lock:
            items = list(self.values.items())
        lines = []
        for name, value in items:
            lines += [f"# TYPE {name} counter", f'{name}{{model_name="{model}"}} {float(value)}']
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Finish:
    """Why a request's decoding ends at a token: ``length`` at its ``max_tokens``-th token,
    ``stop`` at the end-of-sequence token (unless ``ignore_eos``), else not yet (None)."""

    max_tokens: int
    ignore_eos: bool
    eos_token_ids: tuple[int, ...]

    def reason(self, token: int, made: int) -> str | None:
        if not self.ignore_eos and token in self.eos_token_ids:
            return "stop"
        return "length" if made >= self.max_tokens else None


def completion_chunk(model: str, text: str, tokens: list[int], finish: str | None) -> dict:
    return {"id": "cmpl-chipperf", "object": "text_completion", "created": int(time.time()),
            "model": model, "system_fingerprint": FINGERPRINT,
            "choices": [{"index": 0, "text": text, "token_ids": tokens,
                         "finish_reason": finish}]}


def usage(prompt: int, completion: int) -> dict:
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}


@dataclass(frozen=True)
class CompletionRequest:
    """The fields of a ``/v1/completions`` body the engine honours. ``prompt`` is a string, a
    list of token ids, or a list of either (one choice each); ``stop`` strings end a
    non-streamed completion at the first of them (the text stops before it); ``echo`` puts the
    prompt before the completion and, with ``logprobs`` (top ids per position), its tokens'
    log-probabilities too (what lm-eval's ``local-completions`` asks for a loglikelihood)."""

    prompts: tuple[list[int], ...]
    max_tokens: int
    ignore_eos: bool = False
    stop: tuple[str, ...] = ()
    echo: bool = False
    logprobs: int | None = None
    stream: bool = False
    include_usage: bool = False

    @classmethod
    def parse(cls, body: dict, engine: Any) -> "CompletionRequest":
        """The request of ``body`` (ValueError or TypeError naming the bad field)."""
        raw = body.get("prompt")
        batch = isinstance(raw, list) and bool(raw) and all(isinstance(p, (str, list)) for p in raw)
        items: list[Any] = raw if batch and isinstance(raw, list) else [raw]
        prompts = tuple(engine.encode(p) for p in items)
        stream = bool(body.get("stream"))
        if stream and len(prompts) > 1:
            raise ValueError("stream takes one prompt, got a list of several")
        max_tokens = 16 if body.get("max_tokens") is None else int(body["max_tokens"])
        if max_tokens < (0 if body.get("echo") else 1):
            raise ValueError(f"max_tokens must be >= 1 (0 only with echo), got {max_tokens}")
        stop = body.get("stop") or ()
        logprobs = body.get("logprobs")
        return cls(prompts, max_tokens, bool(body.get("ignore_eos")),
                   (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop),
                   bool(body.get("echo")), None if logprobs is None else int(logprobs), stream,
                   bool((body.get("stream_options") or {}).get("include_usage")))


def answer(engine: Any, prompt: list[int], request: CompletionRequest) -> dict:
    """One prompt's choice of a non-streamed reply: greedy tokens up to ``max_tokens``, EOS
    (unless ignored) or the first stop string; with ``echo`` the prompt first; with
    ``logprobs`` each shown token's log-probability and the top ones at its position."""
    made, text, reason = decode_until(engine, prompt, request)
    shown = prompt + made if request.echo else made
    choice = {"text": (engine.decode(prompt) if request.echo else "") + text,
              "token_ids": made, "finish_reason": reason}
    if request.logprobs is not None and shown:
        entries = engine.logprobs(prompt + made, request.logprobs)[len(prompt + made) - len(shown):]
        choice["logprobs"] = logprob_record(engine, shown, entries)
    return choice


def decode_until(engine: Any, prompt: list[int],
                 request: CompletionRequest) -> tuple[list[int], str, str]:
    """(the tokens made, their text cut before the first stop string, finish_reason)."""
    made: list[int] = []
    for token in engine.stream(prompt, request.max_tokens, request.ignore_eos):
        made.append(token)
        text = engine.decode(made)
        cuts = [text.find(s) for s in request.stop if s and s in text]
        if cuts:
            return made, text[:min(cuts)], "stop"
    finish = Finish(request.max_tokens, request.ignore_eos, engine.eos_token_ids)
    reason = (finish.reason(made[-1], len(made)) if made else None) or "length"
    return made, engine.decode(made), reason


def logprob_record(engine: Any, ids: list[int], entries: list) -> dict:
    """OpenAI's completion ``logprobs``: tokens, token_logprobs, top_logprobs, text_offset
    (None for a token without context); top ids are keyed by their text, as OpenAI's are."""
    tokens = [engine.decode([t]) for t in ids]
    offsets = [sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
    return {"tokens": tokens,
            "token_logprobs": [e[0] if e else None for e in entries],
            "top_logprobs": [{engine.decode([i]): v for i, v in e[1].items()} if e else None
                             for e in entries],
            "text_offset": offsets}


class CompletionHandler(BaseHTTPRequestHandler):
    server: "EngineServer"

    def log_message(self, format: str, *args: Any) -> None:   # noqa: A002 - the base's name
        pass   # one line per request would drown the server log

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/health":
            self.reply(200, b"", "text/plain")
        elif self.path == "/metrics":
            self.reply(200, self.server.counters.exposition(self.server.model_name).encode(),
                       "text/plain; version=0.0.4")
        elif self.path == "/v1/models":
            model = {"id": self.server.model_name, "object": "model",
                     "root": self.server.model_name, "owned_by": "chipperf"}
            self.reply_json(200, {"object": "list", "data": [model]})
        else:
            self.reply_json(404, {"error": f"no route {self.path}"})

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self.path != "/v1/completions":
            self.reply_json(404, {"error": f"no route {self.path}"})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            request = CompletionRequest.parse(body, self.server.engine)
        except (ValueError, TypeError) as exc:
            self.reply_json(400, {"error": str(exc)})
            return
        self.server.counters.add(REQUESTS, 1)
        self.server.counters.add(PROMPT_TOKENS, sum(len(p) for p in request.prompts))
        if request.stream:
            self.stream_reply(request)
        else:
            self.whole_reply(request)

    def stream_reply(self, request: "CompletionRequest") -> None:
        """Each token's chunk as soon as it is decoded (the client's TTFT and inter-token
        latencies are the engine's); the last one carries finish_reason, as vLLM's does."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        prompt, made = request.prompts[0], 0
        finish = Finish(request.max_tokens, request.ignore_eos, self.server.engine.eos_token_ids)
        for token in self.server.engine.stream(prompt, request.max_tokens, request.ignore_eos):
            made += 1
            self.server.counters.add(GENERATION_TOKENS, 1)
            self.event(self.token_chunk(token, finish.reason(token, made)))
        if request.include_usage:
            self.event({"id": "cmpl-chipperf", "object": "text_completion",
                        "model": self.server.model_name, "choices": [],
                        "usage": usage(len(prompt), made)})
        self.wfile.write(b"data: [DONE]\n\n")

    def token_chunk(self, token: int, finish: str | None) -> dict:
        return completion_chunk(self.server.model_name, self.server.engine.decode([token]),
                                [token], finish)

    def whole_reply(self, request: "CompletionRequest") -> None:
        """One choice per prompt (index in the order of the prompts), usage over all."""
        choices, made = [], 0
        for index, prompt in enumerate(request.prompts):
            choice = answer(self.server.engine, prompt, request)
            choices.append({**choice, "index": index})
            made += len(choice["token_ids"])
        self.server.counters.add(GENERATION_TOKENS, made)
        reply = completion_chunk(self.server.model_name, "", [], None)
        prompts = sum(len(p) for p in request.prompts)
        self.reply_json(200, {**reply, "choices": choices, "usage": usage(prompts, made)})

    def event(self, data: dict) -> None:
        self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
        self.wfile.flush()

    def reply_json(self, status: int, data: dict) -> None:
        self.reply(status, json.dumps(data).encode(), "application/json")

    def reply(self, status: int, payload: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class EngineServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], engine: Any, model_name: str) -> None:
        super().__init__(address, CompletionHandler)
        self.engine, self.model_name, self.counters = engine, model_name, Counters()


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tfserver", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dtype", choices=sorted(PRECISIONS), default="float32")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> None:
    from chipperf_runtime.models.tvision import prepare_torchvision

    prepare_torchvision()   # transformers imports torchvision where present (models/tvision.py)
    from chipperf_runtime.device.torch import open_torch_device
    from chipperf_runtime.inference.llm.served.tfengine import TransformersServingEngine

    args = parse(argv)
    device = open_torch_device(0)
    engine = TransformersServingEngine.load(args.model, device.device, PRECISIONS[args.dtype],
                                            args.seed)
    print(f"transformers engine: {args.model} on {device.device}, {args.dtype}, greedy; "
          f"serving http://{args.host}:{args.port}", flush=True)
    EngineServer((args.host, args.port), engine, str(args.model)).serve_forever()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
