"""One `hlab serve` episode driven token by token by an engine: what the verl and slime adapters share.

The engine samples every action from token ids and returns the ids and log-probs it sampled;
this module keeps them verbatim (mask 1, log-probs carried) and appends, after each action,
the chat template's continuation of the harness's next view (the tool message(s) plus the
next generation prompt, mask 0). The next generation is prompted with exactly those ids, so
the trained sequence is, token for token, what the engine was prompted with plus what it
sampled.

A harness that rewrites history (C1 pruning, C2 compaction, bb-coding-cli's compaction)
shows a view that is not the previous view plus the action plus new messages. Then the
sequence is closed and a new one (a *segment*) starts from the chat template of the new view:
one trained sequence per append-only run of turns, i.e. one per turn once a harness rewrites
every turn — the rule Harness Lab's own trainer follows (docs/ARCHITECTURE.md "Rows and
trajectories"). Detection is by comparing views, so no list of harness ids is needed.

Before the harness sees an action: special tokens are skipped (`decode(skip_special_tokens=True)`)
and a leading `<think>…</think>` block is removed (an unclosed `<think>` leaves no action).

Budgets: each generation gets `min(max_action_tokens, response_budget − segment response
length, max_context_tokens − context length)` new tokens; an action cut at that cap is sent
with `cutOff` (the server ends the episode truncated); an observation that does not fit ends
the episode (truncated, reward 0).

Errors: any `HlabError` (429 full, 503 fault, 404 expired, timeouts) ends the episode with
status "failed", reward 0 and the error text; an engine abort ends it with status "aborted".
Nothing here raises for a server or engine-abort condition; engine exceptions propagate.

Tokenizer: Hugging Face style — `apply_chat_template(messages, tools=…, tokenize=False,
add_generation_prompt=…, **chat_template_kwargs) -> str`, `encode(text, add_special_tokens=False)`,
`decode(ids, skip_special_tokens=…)`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Optional

from integrations.hlab_client import HlabClient, HlabError

__all__ = ["Generation", "Segment", "EpisodeResult", "action_text", "run_episode"]

_SENTINEL = "\u0000hlab-assistant-end\u0000"


@dataclass
class Generation:
    """One engine answer: the sampled `ids`, their `logprobs` (None when the engine gave none),
    and `finish`: "stop" (a stop token or string), "length" (hit max_new_tokens) or "abort"."""

    ids: List[int]
    logprobs: Optional[List[float]]
    finish: str
    num_preempted: Optional[int] = None


@dataclass
class Segment:
    """One trained sequence: `prompt_ids` then `response_ids` (same length as `response_mask`
    and `response_logprobs`; mask 1 exactly on sampled ids, log-prob 0.0 on mask-0 ids;
    `response_logprobs` is None once the engine returned an action without log-probs)."""

    prompt_ids: List[int]
    response_ids: List[int] = field(default_factory=list)
    response_mask: List[int] = field(default_factory=list)
    response_logprobs: Optional[List[float]] = field(default_factory=list)
    #: actions sampled in this segment
    actions: int = 0
    #: observations (tool/user messages) appended in this segment
    observations: int = 0


@dataclass
class EpisodeResult:
    """`segments` (≥ 1 unless the episode could not be created), `reward` (the verifier's pass,
    0/1; 0 unless the server ended the episode), `status` ("completed", "truncated", "failed",
    "aborted"), `error` (one line, or None), `turns` (actions stepped), `score`, `passed`, `tags`,
    `truncation_reason`, and `metrics` {generate_sequences, tool_calls (seconds), num_preempted}."""

    segments: List[Segment]
    reward: float = 0.0
    status: str = "failed"
    error: Optional[str] = None
    turns: int = 0
    score: float = 0.0
    passed: bool = False
    tags: Any = None
    truncation_reason: Optional[str] = None
    metrics: Dict[str, Any] = field(default_factory=dict)
    episode_id: Optional[str] = None


def action_text(tokenizer: Any, ids: List[int]) -> str:
    """The action the harness sees for sampled `ids`: special tokens skipped, a `<think>…</think>`
    block (and the whitespace after it) removed; an unclosed `<think>` (cut off while thinking) is ""."""
    text = tokenizer.decode(ids, skip_special_tokens=True)
    if "</think>" in text:
        return text[text.rindex("</think>") + len("</think>") :].lstrip()
    if text.lstrip().startswith("<think>"):
        return ""
    return text


def _chat(messages: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    """Server messages {role, content, policy} -> chat-template messages."""
    return [{"role": m["role"], "content": m["content"]} for m in messages]


class _Renderer:
    """The chat template with fixed tools and kwargs, and the token ids the template puts after an
    assistant message's content (e.g. Qwen's `<|im_end|>\\n`)."""

    def __init__(self, tokenizer: Any, tools: Optional[List[Dict[str, Any]]], kwargs: Dict[str, Any]):
        self.tok = tokenizer
        self.tools = tools
        self.kwargs = dict(kwargs or {})
        probe = self.text([{"role": "user", "content": "x"}, {"role": "assistant", "content": _SENTINEL}], False)
        self.after_assistant = self.ids(probe[probe.rindex(_SENTINEL) + len(_SENTINEL) :])

    def text(self, messages: List[Dict[str, str]], generation_prompt: bool) -> str:
        return self.tok.apply_chat_template(messages, tools=self.tools, tokenize=False, add_generation_prompt=generation_prompt, **self.kwargs)

    def ids(self, text: str) -> List[int]:
        return list(self.tok.encode(text, add_special_tokens=False))

    def continuation(self, sampled: List[int], view: List[Dict[str, str]], action: str, new_view: List[Dict[str, str]]) -> Optional[List[int]]:
        """Ids that follow the `sampled` ids when `new_view` = `view` + the action + new messages under
        the template (closing glue the engine did not sample, then the new messages and the generation
        prompt); None when `new_view` rewrites history (or the template does not render it as a prefix)."""
        n = len(view)
        if len(new_view) <= n + 1 or new_view[:n] != view or new_view[n] != {"role": "assistant", "content": action}:
            return None
        closed = self.text(new_view[: n + 1], False)
        full = self.text(new_view, True)
        if not closed.startswith(self.text(view, False)) or not full.startswith(closed):
            return None
        glue = self.after_assistant
        k = min(len(glue), len(sampled))
        while k > 0 and sampled[len(sampled) - k :] != glue[:k]:
            k -= 1
        return glue[k:] + self.ids(full[len(closed) :])


async def run_episode(
    client: HlabClient,
    keys: Dict[str, Any],
    tokenizer: Any,
    generate: Callable[[List[int], int], Awaitable[Generation]],
    *,
    response_budget: int,
    max_action_tokens: Optional[int] = None,
    max_context_tokens: Optional[int] = None,
    max_prompt_tokens: Optional[int] = None,
    tools: Optional[List[Dict[str, Any]]] = None,
    chat_template_kwargs: Optional[Dict[str, Any]] = None,
    opening_text: Optional[str] = None,
) -> EpisodeResult:
    """Run one episode of the row `keys` (`hlab_client.episode_keys`) with the engine `generate`
    (prompt ids, max new tokens ≥ 1 -> Generation) and delete it; never raises on a server error.

    response_budget: most response ids (sampled + observation) per trained sequence (≥ 1).
    max_action_tokens: most ids one action may have (default: the budget).
    max_context_tokens: most prompt + response ids per sequence (default: unbounded).
    max_prompt_tokens: most prompt ids of a sequence started after a rewrite (default: unbounded);
    a longer one ends the episode truncated (reason "prompt").
    tools, chat_template_kwargs: passed to every `apply_chat_template` call.
    opening_text: the rendered opening prompt the engine's dataset built (slime `sample.prompt`);
    it must equal the template of the server's opening view, else the episode fails with that error.
    """
    if response_budget < 1:
        raise ValueError(f"response_budget must be ≥ 1, got {response_budget}")
    cap = response_budget if max_action_tokens is None else max_action_tokens
    if cap < 1:
        raise ValueError(f"max_action_tokens must be ≥ 1, got {max_action_tokens}")
    render = _Renderer(tokenizer, tools, chat_template_kwargs or {})
    metrics: Dict[str, Any] = {"generate_sequences": 0.0, "tool_calls": 0.0, "num_preempted": -1}
    result = EpisodeResult(segments=[], metrics=metrics)
    t0 = time.perf_counter()
    try:
        ep = await asyncio.to_thread(client.create_episode, suite=keys["suite"], task=keys["task"], harness=keys["harness"], max_turns=keys.get("max_turns"))
    except HlabError as e:
        result.error = str(e)
        metrics["tool_calls"] += time.perf_counter() - t0
        return result
    metrics["tool_calls"] += time.perf_counter() - t0
    result.episode_id = ep["episodeId"]
    try:
        view = _chat(ep["messages"])
        opening = render.text(view, True)
        if opening_text is not None and opening_text != opening:
            result.error = "the row's rendered prompt is not the chat template of the episode's opening view (export and server differ, or other template kwargs)"
            return result
        seg = Segment(prompt_ids=render.ids(opening))
        result.segments.append(seg)
        while True:
            context = len(seg.prompt_ids) + len(seg.response_ids)
            max_new = min(cap, response_budget - len(seg.response_ids))
            if max_context_tokens is not None:
                max_new = min(max_new, max_context_tokens - context)
            if max_new < 1:
                result.status, result.truncation_reason = "truncated", "tokens"
                return result
            t = time.perf_counter()
            gen = await generate(seg.prompt_ids + seg.response_ids, max_new)
            metrics["generate_sequences"] += time.perf_counter() - t
            if gen.num_preempted is not None:
                metrics["num_preempted"] = max(metrics["num_preempted"], 0) + gen.num_preempted
            sampled = list(gen.ids)[:max_new]
            seg.response_ids += sampled
            seg.response_mask += [1] * len(sampled)
            if gen.logprobs is None or len(gen.logprobs) < len(sampled):
                seg.response_logprobs = None  # none beats made-up ones: rollout correction would trust them
            elif seg.response_logprobs is not None:
                seg.response_logprobs += list(gen.logprobs)[: len(sampled)]
            seg.actions += 1
            if gen.finish == "abort":
                result.status, result.error = "aborted", "the engine aborted the generation"
                return result
            action = action_text(tokenizer, sampled)
            cut_off = gen.finish == "length" or len(gen.ids) > max_new
            t = time.perf_counter()
            try:
                out = await asyncio.to_thread(client.step, ep["episodeId"], action, cut_off)
            finally:
                metrics["tool_calls"] += time.perf_counter() - t
            result.turns += 1
            if out["done"]:
                result.reward = float(out["reward"])
                result.score, result.passed, result.tags = out["score"], bool(out["pass"]), out["tags"]
                result.status = "truncated" if out["truncated"] else "completed"
                result.truncation_reason = out.get("truncationReason")
                return result
            new_view = _chat(out["messages"])
            cont = render.continuation(sampled, view, action, new_view)
            if cont is None:
                prompt_ids = render.ids(render.text(new_view, True))
                if max_prompt_tokens is not None and len(prompt_ids) > max_prompt_tokens:
                    result.status, result.truncation_reason = "truncated", "prompt"
                    return result
                seg = Segment(prompt_ids=prompt_ids)
                result.segments.append(seg)
            elif len(seg.response_ids) + len(cont) >= response_budget or (
                max_context_tokens is not None and len(seg.prompt_ids) + len(seg.response_ids) + len(cont) >= max_context_tokens
            ):
                result.status, result.truncation_reason = "truncated", "tokens"
                return result
            else:
                seg.response_ids += cont
                seg.response_mask += [0] * len(cont)
                if seg.response_logprobs is not None:
                    seg.response_logprobs += [0.0] * len(cont)
                seg.observations += 1
            view = new_view
    except HlabError as e:
        result.status, result.error, result.reward = "failed", str(e), 0.0
        return result
    finally:
        try:
            await asyncio.to_thread(client.delete_episode, ep["episodeId"])
        except HlabError:
            pass  # expired, already gone, or the server is down: nothing to clean up
