"""slime custom generate and reward functions that run each sample's episode through `hlab serve`, token-exact.

Written against slime 624b824 (`--custom-generate-function-path`: `async def generate(args,
sample, sampling_params) -> Sample | list[Sample]`; `--custom-rm-path`: `async def
reward_func(args, sample_or_group, **kwargs)`; `GenerateState(args).tokenizer`;
`slime.utils.http_utils.post`; SGLang `/generate` with `input_ids` and `return_logprob`).
Tested end to end against a real `hlab serve` with a fake SGLang endpoint
(integrations/tests/test_slime.py).

Samples come from `hlab export --format slime` (`metadata` = {suite, task, harness, max_turns, …},
`tools` = function schemas). The episode runs as integrations/hlab_episode.py describes:
the opening context is `sample.prompt` (what slime rendered with `--apply-chat-template`, with
`--tool-key` tools and `--apply-chat-template-kwargs`; it must equal the template of the
server's opening view), every turn generates from token ids with the engine's ids and
log-probs kept (`rollout_log_probs`, for `--use-tis` / `--use-rollout-logprobs`), observations
are the template's continuation (loss mask 0), special tokens and `<think>` are removed before
the harness sees an action (slime sends `skip_special_tokens=False`, `no_stop_trim=True`), each
turn's `max_new_tokens` is min(`hlab_max_action_tokens`, what is left of the sample's
`max_new_tokens`, what is left of `--rollout-max-context-len`), and any server error ends the
sample with reward 0 and status FAILED (an engine abort: ABORTED, so slime retries it).

A harness that rewrites history (C1, C2, bb-coding-cli's compaction) gives several
sequences: `generate` then returns a list of samples, one per append-only run of turns (one
per turn once every turn rewrites), all with the episode's reward and the same `rollout_id`.
The reward is set by `generate`; `reward_func` returns it (also for `--group-rm`).

`hlab_max_action_tokens` (per-action cap) comes from `--custom-config-path` YAML; default: no
cap beyond the response budget. Environment: HLAB_SERVE_URL, HLAB_SERVE_TOKEN.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Union

# The repository root must be on PYTHONPATH (the engine imports this module as integrations.…).
from integrations.hlab_client import HlabClient, episode_keys
from integrations.hlab_episode import EpisodeResult, Generation, Segment, run_episode

from slime.rollout.sglang_rollout import GenerateState
from slime.utils.http_utils import post
from slime.utils.types import Sample

_STATUS = {"completed": "COMPLETED", "truncated": "TRUNCATED", "failed": "FAILED", "aborted": "ABORTED"}


async def generate(args, sample: Sample, sampling_params: Dict[str, Any]) -> Union[Sample, List[Sample]]:
    """Run the sample's episode; fill tokens, response, response_length, loss_mask,
    rollout_log_probs, reward, status and metadata["hlab"] (one sample per trained sequence)."""
    state = GenerateState(args)
    tokenizer = state.tokenizer
    url = f"http://{args.sglang_router_ip}:{args.sglang_router_port}/generate"
    metadata = sample.metadata if isinstance(sample.metadata, dict) else {}
    keys = episode_keys(metadata)
    kwargs = dict(getattr(sample, "apply_chat_template_kwargs", None) or getattr(args, "apply_chat_template_kwargs", None) or {})
    tools = metadata.get("tools")
    budget = int(sampling_params["max_new_tokens"])
    cap = getattr(args, "hlab_max_action_tokens", None)

    async def engine(prompt_ids: List[int], max_new_tokens: int) -> Generation:
        payload = {"input_ids": prompt_ids, "sampling_params": {**sampling_params, "max_new_tokens": max_new_tokens}, "return_logprob": True}
        out = await post(url, payload)
        meta = out["meta_info"]
        pairs = meta.get("output_token_logprobs") or []
        finish = (meta.get("finish_reason") or {}).get("type", "stop")
        return Generation(ids=[int(p[1]) for p in pairs], logprobs=[float(p[0]) for p in pairs], finish=finish if finish in ("length", "abort") else "stop")

    r = await run_episode(
        HlabClient(),  # $HLAB_SERVE_URL, $HLAB_SERVE_TOKEN (cheap: no connection is held)
        keys,
        tokenizer,
        engine,
        response_budget=budget,
        max_action_tokens=int(cap) if cap is not None else None,
        max_context_tokens=getattr(args, "rollout_max_context_len", None),
        tools=tools,
        chat_template_kwargs=kwargs,
        opening_text=sample.prompt if isinstance(sample.prompt, str) and sample.prompt else None,
    )
    segments = r.segments or [Segment(prompt_ids=_prompt_ids(tokenizer, sample, tools, kwargs))]
    out = [_fill(sample if i == 0 else copy.copy(sample), seg, i, len(segments), r, tokenizer) for i, seg in enumerate(segments)]
    return out[0] if len(out) == 1 else out


def _prompt_ids(tokenizer, sample: Sample, tools, kwargs) -> List[int]:
    """The sample's own prompt ids (for a sample whose episode could not be created)."""
    text = sample.prompt if isinstance(sample.prompt, str) else tokenizer.apply_chat_template(sample.prompt, tools=tools, tokenize=False, add_generation_prompt=True, **kwargs)
    return list(tokenizer.encode(text, add_special_tokens=False))


def _fill(s: Sample, seg: Segment, i: int, n: int, r: EpisodeResult, tokenizer) -> Sample:
    s.tokens = seg.prompt_ids + seg.response_ids
    s.response_length = len(seg.response_ids)
    s.response = tokenizer.decode(seg.response_ids, skip_special_tokens=False)
    s.loss_mask = list(seg.response_mask)
    s.rollout_log_probs = list(seg.response_logprobs)
    s.reward = r.reward
    s.status = getattr(Sample.Status, _STATUS[r.status])
    if n > 1 and hasattr(s, "rollout_id"):
        s.rollout_id = s.index  # siblings of one rollout: slime averages their loss within it
    hlab = {"reward": r.reward, "score": r.score, "pass": r.passed, "status": r.status, "error": r.error, "turns": r.turns,
            "truncation_reason": r.truncation_reason, "tags": r.tags, "segment": i, "segments": n, "metrics": r.metrics}
    s.metadata = {**(s.metadata if isinstance(s.metadata, dict) else {}), "hlab": hlab}
    return s


async def reward_func(args, sample: Union[Sample, List[Any]], **kwargs) -> Union[float, List[float]]:
    """The verifier's pass (1.0 / 0.0) `generate` recorded; with `--group-rm` (a list of samples,
    or of lists of one episode's samples) one reward per element."""
    if isinstance(sample, list):
        return [await reward_func(args, s[0] if isinstance(s, list) else s) for s in sample]
    return float(((sample.metadata or {}).get("hlab") or {}).get("reward", 0.0))
