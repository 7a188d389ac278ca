"""Assertions shared by the verl and slime adapter tests."""

from __future__ import annotations

from typing import Any, Dict, List

from integrations.tests.fakes import TOKENIZER

#: actions long enough that compaction (C2 at 320 tokens, bb-coding-cli at 384, counted as chars/4) happens within a few turns
FILLER = "Let me look at the files first and check what the task needs before changing anything. " * 3


def filler_policy(call: int, prompt: str) -> str:
    # Starts with '{': a broken call under every harness, so the black boxes (where a plain-text
    # message is the final reply) keep the episode open until the turn budget ends it.
    return f"{{{FILLER}(turn {call})"


def rewrites(views: List[List[Dict[str, str]]]) -> int:
    """Turns whose next view is not the previous view + the assistant action + new messages."""
    n = 0
    for a, b in zip(views, views[1:]):
        if not (len(b) > len(a) + 1 and b[: len(a)] == a and b[len(a)]["role"] == "assistant"):
            n += 1
    return n


def assert_token_exact(calls: List[Dict[str, Any]], segments: List[Dict[str, Any]], views=None, chat_kwargs=None) -> None:
    """Every engine call's prompt is a prefix of exactly one trained sequence (or starts the next one),
    its sampled ids follow with mask 1 and their log-probs, the mask is 1 nowhere else, every call and
    every segment is accounted for; with `views`, each prompt is the chat template of the harness view
    the server showed for that turn, token for token."""
    assert calls, "the engine was never called"
    si, sampled_pos = -1, {}
    seq: List[int] = []
    for c, call in enumerate(calls):
        p = call["prompt_ids"]
        if si >= 0 and len(p) > len(segments[si]["prompt_ids"]) and seq[: len(p)] == p:
            pass  # continues the current sequence
        else:
            si += 1
            assert si < len(segments), f"call {c}: its prompt starts no trained sequence"
            assert p == segments[si]["prompt_ids"], f"call {c}: prompt is not the prompt of sequence {si}"
            seq = segments[si]["prompt_ids"] + segments[si]["response_ids"]
            sampled_pos[si] = set()
        n0 = len(segments[si]["prompt_ids"])
        start = len(p) - n0
        ids = call["ids"]
        assert seq[len(p) : len(p) + len(ids)] == ids, f"call {c}: sampled ids are not in the trained sequence"
        assert segments[si]["response_mask"][start : start + len(ids)] == [1] * len(ids)
        assert segments[si]["response_logprobs"][start : start + len(ids)] == call["logprobs"], f"call {c}: log-probs not carried"
        sampled_pos[si].update(range(start, start + len(ids)))
        if views is not None:
            want = TOKENIZER.encode(TOKENIZER.apply_chat_template(views[c], tokenize=False, add_generation_prompt=True, **(chat_kwargs or {})))
            assert p == want, f"call {c}: prompt is not the chat template of the harness view"
    assert si == len(segments) - 1, f"{len(segments) - 1 - si} trained sequences without an engine call"
    for i, s in enumerate(segments):
        ones = {k for k, m in enumerate(s["response_mask"]) if m == 1}
        assert ones == sampled_pos[i], f"sequence {i}: mask 1 on ids the engine did not sample"
        assert len(s["response_ids"]) == len(s["response_mask"]) == len(s["response_logprobs"])
        assert all(lp == 0.0 for lp, m in zip(s["response_logprobs"], s["response_mask"]) if m == 0)
