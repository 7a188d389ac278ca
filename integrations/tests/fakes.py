"""Fakes for the adapter tests: a Qwen-style chat template over a byte-level tokenizer, a scripted
engine (behind a fake verl server manager and a fake SGLang HTTP endpoint), stand-ins for the
verl and slime modules the adapters import, and an HTTP proxy in front of `hlab serve` that
records every view the server returns and injects error answers."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import re
import sys
import threading
import types
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ADDED = ["<think>", "</think>"]  # added but not special, as in Qwen3: skip_special_tokens keeps them
DEFAULT_SYSTEM = "You are a helpful assistant."


class QwenByteTokenizer:
    """Ids 0–255 are bytes; 256+ are the added tokens above. The chat template follows Qwen2.5/Qwen3:
    `<|im_start|>{role}\\n{content}<|im_end|>\\n`, a default system message, tool messages as a user
    turn wrapped in `<tool_response>`, tools listed in the system message, and `enable_thinking=False`
    adding an empty think block to the generation prompt. Unknown template kwargs are an error."""

    def __init__(self):
        self.added = {t: 256 + i for i, t in enumerate(SPECIAL + ADDED)}
        self.inverse = {v: k for k, v in self.added.items()}
        self.special_ids = {self.added[t] for t in SPECIAL}
        self.im_end = self.added["<|im_end|>"]
        self.eos_token_id = self.im_end  # as Qwen instruct models' tokenizers
        self._split = re.compile("|".join(re.escape(t) for t in sorted(self.added, key=len, reverse=True)))

    def encode(self, text: str, add_special_tokens: bool = False) -> List[int]:
        ids: List[int] = []
        pos = 0
        for m in self._split.finditer(text):
            ids += list(text[pos : m.start()].encode("utf-8"))
            ids.append(self.added[m.group()])
            pos = m.end()
        return ids + list(text[pos:].encode("utf-8"))

    def decode(self, ids: List[int], skip_special_tokens: bool = False) -> str:
        out, buf = [], bytearray()
        for i in ids:
            if i < 256:
                buf.append(i)
                continue
            out.append(buf.decode("utf-8", "replace"))
            buf = bytearray()
            if not (skip_special_tokens and i in self.special_ids):
                out.append(self.inverse[i])
        out.append(buf.decode("utf-8", "replace"))
        return "".join(out)

    def apply_chat_template(self, messages, tools=None, tokenize=True, add_generation_prompt=False, enable_thinking=True):
        msgs = list(messages)
        text = ""
        system = msgs.pop(0)["content"] if msgs and msgs[0]["role"] == "system" else DEFAULT_SYSTEM
        if tools:
            system += "\n\n# Tools\n<tools>\n" + "\n".join(json.dumps(t, sort_keys=True) for t in tools) + "\n</tools>"
        text += f"<|im_start|>system\n{system}<|im_end|>\n"
        for m in msgs:
            if m["role"] == "tool":
                text += f"<|im_start|>user\n<tool_response>\n{m['content']}\n</tool_response><|im_end|>\n"
            else:
                text += f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n"
        if add_generation_prompt:
            text += "<|im_start|>assistant\n" + ("" if enable_thinking else "<think>\n\n</think>\n\n")
        return self.encode(text) if tokenize else text


TOKENIZER = QwenByteTokenizer()


class ScriptedEngine:
    """A deterministic engine: `policy(call_index, prompt_text)` gives the text to sample; its ids end
    with `<|im_end|>` (finish "stop") unless cut at max_new (finish "length"). Log-prob of the k-th id
    of call c is −(1 + (7c + k) mod 13)/16, so carried log-probs are checkable. Records every call."""

    def __init__(self, policy: Callable[[int, str], str], abort_at: Optional[int] = None):
        self.policy = policy
        self.abort_at = abort_at
        self.calls: List[Dict[str, Any]] = []
        self.lock = threading.Lock()

    def sample(self, prompt_ids: List[int], max_new: int) -> Dict[str, Any]:
        with self.lock:
            c = len(self.calls)
            text = self.policy(c, TOKENIZER.decode(prompt_ids))
            ids = TOKENIZER.encode(text) + [TOKENIZER.im_end]
            finish = "stop"
            if len(ids) > max_new:
                ids, finish = ids[:max_new], "length"
            if self.abort_at == c:
                ids, finish = ids[:3], "abort"
            logprobs = [-(1 + (7 * c + k) % 13) / 16 for k in range(len(ids))]
            call = {"prompt_ids": list(prompt_ids), "max_new": max_new, "ids": ids, "logprobs": logprobs, "finish": finish}
            self.calls.append(call)
            return call


# -- verl stand-in ------------------------------------------------------------------------------


class FakeServerManager:
    """verl's AsyncLLMServerManager.generate contract: prompt ids in, TokenOutput(token_ids, log_probs,
    stop_reason, num_preempted) out; like verl's servers it pops max_tokens from sampling_params."""

    def __init__(self, engine: ScriptedEngine, with_logprobs: bool = True):
        self.engine = engine
        self.with_logprobs = with_logprobs
        self.sampling_params: List[Dict[str, Any]] = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None, video_data=None):
        self.sampling_params.append(dict(sampling_params))
        max_new = sampling_params.pop("max_tokens", 1 << 30)
        call = self.engine.sample(prompt_ids, max_new)
        return types.SimpleNamespace(
            token_ids=call["ids"],
            log_probs=call["logprobs"] if self.with_logprobs else None,
            stop_reason="aborted" if call["finish"] == "abort" else "completed",
            num_preempted=0,
        )


def install_fake_verl() -> Dict[str, Any]:
    """Install verl.experimental.agent_loop.agent_loop (AgentLoopBase, AgentLoopOutput, register) with
    upstream's constructor and field names; returns the agent-loop registry."""
    registry: Dict[str, Any] = {}
    mod = types.ModuleType("verl.experimental.agent_loop.agent_loop")

    @dataclasses.dataclass
    class AgentLoopOutput:
        prompt_ids: List[int]
        response_ids: List[int]
        response_mask: List[int]
        metrics: Dict[str, Any]
        response_logprobs: Optional[List[float]] = None
        routed_experts: Any = None
        multi_modal_data: Optional[Dict[str, Any]] = None
        reward_score: Optional[float] = None
        num_turns: int = 0
        extra_fields: Dict[str, Any] = dataclasses.field(default_factory=dict)

    class AgentLoopBase:
        def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls, dataset_config, **kwargs):
            self.config = trainer_config.config
            self.server_manager = server_manager
            self.tokenizer = tokenizer
            self.processor = processor
            self.dataset_config = dataset_config.config
            self.apply_chat_template_kwargs = self.dataset_config.get("apply_chat_template_kwargs", {})

        async def apply_chat_template(self, messages, tools=None, images=None, videos=None, remove_system_prompt=False):
            return self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=True, **self.apply_chat_template_kwargs)

    def register(name):
        def deco(cls):
            registry[name] = cls
            return cls

        return deco

    mod.AgentLoopBase, mod.AgentLoopOutput, mod.register = AgentLoopBase, AgentLoopOutput, register
    for name in ("verl", "verl.experimental", "verl.experimental.agent_loop"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules[mod.__name__] = mod
    return registry


def verl_config(response_length: int, prompt_length: int = 1 << 16, chat_kwargs: Optional[Dict[str, Any]] = None):
    """(trainer_config, dataset_config) wrappers as verl's AgentLoopWorker passes them."""
    rollout = types.SimpleNamespace(response_length=response_length, prompt_length=prompt_length)
    trainer = types.SimpleNamespace(config=types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(rollout=rollout)))
    data = types.SimpleNamespace(config={"apply_chat_template_kwargs": chat_kwargs or {}})
    return trainer, data


# -- slime stand-in -----------------------------------------------------------------------------


class _JsonServer:
    """A ThreadingHTTPServer on 127.0.0.1 answering POST/GET/DELETE with
    `handle(method, path, body, headers)` -> (status, json body)."""

    def __init__(self, handle: Callable[[str, str, bytes, Dict[str, str]], Any]):
        class H(BaseHTTPRequestHandler):
            def _any(self):
                n = int(self.headers.get("content-length") or 0)
                status, body = handle(self.command, self.path, self.rfile.read(n) if n else b"", dict(self.headers))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _any

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeSGLang(_JsonServer):
    """SGLang's /generate: {input_ids, sampling_params{max_new_tokens, skip_special_tokens, no_stop_trim, …},
    return_logprob} -> {text, meta_info{output_token_logprobs [[logprob, id, None]…], finish_reason{type}}}."""

    def __init__(self, engine: ScriptedEngine):
        self.engine = engine
        self.payloads: List[Dict[str, Any]] = []

        def handle(method, path, body, headers):
            if path != "/generate":
                return 404, {"error": path}
            p = json.loads(body)
            self.payloads.append(p)
            sp = p["sampling_params"]
            call = engine.sample(p["input_ids"], sp["max_new_tokens"])
            meta = {"finish_reason": {"type": call["finish"]}, "prompt_tokens": len(p["input_ids"]), "completion_tokens": len(call["ids"])}
            if p.get("return_logprob"):
                meta["output_token_logprobs"] = [[lp, i, None] for lp, i in zip(call["logprobs"], call["ids"])]
            return 200, {"text": TOKENIZER.decode(call["ids"], skip_special_tokens=sp.get("skip_special_tokens", True)), "meta_info": meta}

        super().__init__(handle)


def install_fake_slime():
    """Install slime.rollout.sglang_rollout.GenerateState, slime.utils.http_utils.post and
    slime.utils.types.Sample (upstream's field names and Status values); returns Sample."""

    @dataclasses.dataclass
    class Sample:
        class Status(enum.Enum):
            PENDING = "pending"
            COMPLETED = "completed"
            TRUNCATED = "truncated"
            ABORTED = "aborted"
            FAILED = "failed"

        group_index: Optional[int] = None
        index: Optional[int] = None
        rollout_id: Optional[int] = None
        prompt: Any = ""
        tokens: List[int] = dataclasses.field(default_factory=list)
        apply_chat_template_kwargs: dict = dataclasses.field(default_factory=dict)
        response: str = ""
        response_length: int = 0
        label: Optional[str] = None
        reward: Any = None
        loss_mask: Optional[List[int]] = None
        rollout_log_probs: Optional[List[float]] = None
        status: Any = None
        metadata: dict = dataclasses.field(default_factory=dict)

        def __post_init__(self):
            if self.status is None:
                self.status = Sample.Status.PENDING

    class GenerateState:
        def __init__(self, args):
            self.tokenizer = TOKENIZER

    async def post(url, payload, max_retries=60, headers=None):
        def call():
            req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"content-type": "application/json"}, method="POST")
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read())

        return await asyncio.to_thread(call)

    mods = {
        "slime.rollout.sglang_rollout": {"GenerateState": GenerateState},
        "slime.utils.http_utils": {"post": post},
        "slime.utils.types": {"Sample": Sample},
    }
    for name in ("slime", "slime.rollout", "slime.utils"):
        sys.modules.setdefault(name, types.ModuleType(name))
    for name, attrs in mods.items():
        m = types.ModuleType(name)
        for k, v in attrs.items():
            setattr(m, k, v)
        sys.modules[name] = m
    return Sample


def slime_args(router_url: str, **extra):
    host, port = router_url.rsplit("//", 1)[1].split(":")
    base = {"sglang_router_ip": host, "sglang_router_port": int(port), "apply_chat_template_kwargs": {}, "rollout_max_context_len": None}
    base.update(extra)
    return types.SimpleNamespace(**base)


def slime_sampling_params(max_new_tokens: int) -> Dict[str, Any]:
    """slime's GenerateState defaults (skip_special_tokens False, no_stop_trim True)."""
    return {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "max_new_tokens": max_new_tokens, "stop": None, "stop_token_ids": None,
            "skip_special_tokens": False, "no_stop_trim": True, "spaces_between_special_tokens": False}


# -- proxy in front of hlab serve ----------------------------------------------------------------


class ServeProxy(_JsonServer):
    """Forwards to `hlab serve` and records the views it answers (`views`: the opening and every
    non-final step's messages as chat messages, in order). `fail(route, n, status)` answers the n-th
    (1-based) request of route "create" or "step" with an error of that status instead."""

    def __init__(self, target: str):
        self.target = target
        self.views: List[List[Dict[str, str]]] = []
        self.faults: Dict[str, tuple] = {}
        self.counts = {"create": 0, "step": 0}

        def handle(method, path, body, headers):
            route = "create" if (method == "POST" and path == "/v1/episodes") else "step" if path.endswith("/step") else None
            if route:
                self.counts[route] += 1
                f = self.faults.get(route)
                if f and f[0] == self.counts[route]:
                    code = {429: "full", 503: "unavailable"}.get(f[1], "http")
                    return f[1], {"error": f"injected {f[1]}", "field": None, "code": code}
            req = urllib.request.Request(self.target + path, data=body or None, method=method, headers={"content-type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    status, ans = r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                status, ans = e.code, json.loads(e.read() or b"{}")
            if route and status < 300 and ans.get("messages"):
                self.views.append([{"role": m["role"], "content": m["content"]} for m in ans["messages"]])
            return status, ans

        super().__init__(handle)

    def fail(self, route: str, n: int, status: int) -> None:
        self.faults[route] = (n, status)
