"""The transformers server's streaming (``tfserver``) with a stand-in engine, so no model is
loaded: each token's chunk leaves as soon as the engine yields it (the client's TTFT and
inter-token latencies are the engine's, not one token late), the last chunk carries
finish_reason (``length`` at max_tokens, ``stop`` at an EOS token), and the usage chunk counts
what was sent."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from chipperf_runtime.inference.llm.served.tfserver import EngineServer


@dataclass
class GatedEngine:
    """Yields ``tokens``, waiting before each after the first until the test opens its gate."""

    tokens: list[int]
    eos_token_ids: tuple[int, ...] = (2,)
    gates: list[threading.Event] = field(default_factory=list)

    def encode(self, prompt: list[int]) -> list[int]:
        return list(prompt)

    def decode(self, tokens: list[int]) -> str:
        return " ".join(map(str, tokens))

    def stream(self, prompt: list[int], max_tokens: int, ignore_eos: bool) -> Iterator[int]:
        self.gates = [threading.Event() for _ in self.tokens]
        for i, token in enumerate(self.tokens[:max_tokens]):
            if i and not self.gates[i].wait(10):
                raise AssertionError(f"token {i} was never released")
            yield token
            if not ignore_eos and token in self.eos_token_ids:
                return


@pytest.fixture()
def served():
    engine = GatedEngine([7, 8, 9])
    server = EngineServer(("127.0.0.1", 0), engine, "stub")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield engine, server.server_address[1]
    server.shutdown()
    server.server_close()


def open_stream(port: int, body: dict) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("POST", "/v1/completions", json.dumps({"stream": True, **body}),
                 {"Content-Type": "application/json"})
    return conn.getresponse()


def next_event(reply: http.client.HTTPResponse) -> str:
    line = reply.readline().decode()
    assert line.startswith("data: ") and reply.readline() == b"\n", line
    return line[6:].strip()


def test_each_token_leaves_before_the_next_is_decoded(served) -> None:
    engine, port = served
    reply = open_stream(port, {"prompt": [1, 5], "max_tokens": 3, "ignore_eos": True,
                               "stream_options": {"include_usage": True}})
    chunks = []
    for i in range(3):
        chunks.append(json.loads(next_event(reply)))   # arrives while the next token is held
        if i + 1 < 3:
            assert not engine.gates[i + 1].is_set()
            engine.gates[i + 1].set()
    assert [c["choices"][0]["token_ids"] for c in chunks] == [[7], [8], [9]]
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, "length"]
    assert json.loads(next_event(reply))["usage"] == {"prompt_tokens": 2, "completion_tokens": 3,
                                                      "total_tokens": 5}
    assert next_event(reply) == "[DONE]"


def test_an_eos_token_ends_the_stream_with_stop(served) -> None:
    engine, port = served
    engine.tokens[1] = 2          # the EOS id
    reply = open_stream(port, {"prompt": [1], "max_tokens": 3})
    first = json.loads(next_event(reply))
    engine.gates[1].set()
    last = json.loads(next_event(reply))
    assert (first["choices"][0]["finish_reason"], last["choices"][0]["finish_reason"]) == (
        None, "stop")
    assert next_event(reply) == "[DONE]"
