"""slime custom generate and reward functions that run each sample's episode through `hlab serve`.

Not run in Harness Lab's CI (slime is not installed there); only the HTTP client
(../hlab_client.py) is tested, against the real server. Written against slime's
customization hooks (--custom-generate-function-path: `async def generate(args, sample,
sampling_params) -> Sample`; --custom-rm-path: `async def reward_func(args, sample, **kwargs)`);
check the names against the slime version you run.

Samples come from `hlab export --format slime` (jsonl): `prompt` = the opening chat messages,
`label` = the task id, `metadata` = {suite, task, harness, max_turns, ...}, `tools` = function
schemas. Per turn: render the server's current view with the chat template, generate with
slime's SGLang router (/generate), step the episode. The verifier's reward (0/1) is stored in
sample.metadata["hlab_reward"]; reward_func returns it.

slime flags:
    --prompt-data out/export/train.jsonl --input-key prompt --label-key label --metadata-key metadata
    --tool-key tools --apply-chat-template
    --custom-generate-function-path integrations.slime.hlab_generate.generate
    --custom-rm-path integrations.slime.hlab_generate.reward_func
Environment: HLAB_SERVE_URL (default http://127.0.0.1:8765), HLAB_SERVE_TOKEN.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

# The repository root must be on PYTHONPATH (the engine imports this module as integrations.…).
from integrations.hlab_client import HlabClient, episode_keys

from slime.rollout.sglang_rollout import GenerateState
from slime.utils.http_utils import post
from slime.utils.types import Sample

_CLIENT = HlabClient()


def _chat(messages: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in messages]


async def generate(args, sample: Sample, sampling_params: Dict[str, Any]) -> Sample:
    """Run the sample's hlab episode; fill tokens, response, response_length, loss_mask, status."""
    state = GenerateState(args)
    url = f"http://{args.sglang_router_ip}:{args.sglang_router_port}/generate"
    keys = episode_keys(sample.metadata)
    ep = await asyncio.to_thread(_CLIENT.create_episode, suite=keys["suite"], task=keys["task"], harness=keys["harness"], max_turns=keys.get("max_turns"))
    view = _chat(ep["messages"])
    prompt_text = state.tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    prompt_ids = state.tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
    response_ids: List[int] = []
    loss_mask: List[int] = []
    response_text = ""
    out: Dict[str, Any] = {"reward": 0, "done": False, "truncated": False}
    max_new = sampling_params.get("max_new_tokens", 1024)
    try:
        while not out["done"]:
            text = state.tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
            gen = await post(url, {"text": text, "sampling_params": sampling_params, "return_logprob": False})
            action = gen["text"]
            cut_off = gen.get("meta_info", {}).get("finish_reason", {}).get("type") == "length"
            out = await asyncio.to_thread(_CLIENT.step, ep["episodeId"], action, cut_off)
            action_ids = state.tokenizer(action, add_special_tokens=False)["input_ids"]
            response_ids += action_ids
            loss_mask += [1] * len(action_ids)
            response_text += action
            if out["done"] or len(response_ids) >= max_new * keys.get("max_turns", 16):
                break
            obs = out["observation"]
            obs_ids = state.tokenizer(obs, add_special_tokens=False)["input_ids"]
            response_ids += obs_ids
            loss_mask += [0] * len(obs_ids)
            response_text += obs
            view = _chat(out["messages"])
    finally:
        try:
            await asyncio.to_thread(_CLIENT.delete_episode, ep["episodeId"])
        except Exception:
            pass
    sample.tokens = prompt_ids + response_ids
    sample.response = response_text
    sample.response_length = len(response_ids)
    sample.loss_mask = loss_mask
    sample.metadata = {**(sample.metadata or {}), "hlab_reward": out.get("reward", 0), "hlab_score": out.get("score", 0),
                       "hlab_pass": out.get("pass", False), "hlab_tags": out.get("tags")}
    sample.status = Sample.Status.TRUNCATED if out.get("truncated") else Sample.Status.COMPLETED
    return sample


async def reward_func(args, sample: Sample, **kwargs) -> float:
    """The verifier's pass (1.0 / 0.0) recorded by `generate`."""
    return float((sample.metadata or {}).get("hlab_reward", 0))
