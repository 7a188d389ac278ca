"""verl agent loop that runs each row's episode through `hlab serve`.

Not run in Harness Lab's CI (verl is not installed there); only its HTTP client
(../hlab_client.py) is tested, against the real server. Written against verl's experimental
agent-loop API (verl.experimental.agent_loop: AgentLoopBase, AgentLoopOutput, register) as of
verl 0.5/0.6; check the names against the verl version you run.

Rows come from `hlab export --format verl`: `agent_name` = "hlab_agent", `prompt` = the
harness's opening chat messages, `extra_info.interaction_kwargs` = {name, suite, task, harness,
max_turns}. Per turn the loop asks the server for the exact view the harness shows (its
`messages`), samples one action with verl's server manager, and steps the episode; the reward
is the task verifier's pass (0/1), returned as `reward_score`.

Token layout: verl trains on one sequence, prompt_ids + response_ids with response_mask (1 =
sampled by the policy, 0 = observation). It is built append-only: each action's tokens (mask 1)
then the tokens of the tool observation the server returned (mask 0). That is exactly what the
policy saw for harnesses whose view only appends (C0, bb-assistant); for harnesses that
rewrite history (C1 pruning, C2 compaction, bb-coding-cli's compaction) the policy sampled each turn from the server's
rewritten view, and the trained sequence is the append-only approximation (see
docs/SCALE-OUT.md, "history-rewriting harnesses").

Config (verl):
    actor_rollout_ref.rollout.mode=async
    actor_rollout_ref.rollout.agent.agent_loop_config_path=integrations/verl/agent_loop.yaml
    data.train_files=out/export/train.parquet data.val_files=out/export/heldout.parquet
    data.return_raw_chat=True
Environment: HLAB_SERVE_URL (default http://127.0.0.1:8765), HLAB_SERVE_TOKEN.
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List
from uuid import uuid4

# The repository root must be on PYTHONPATH (the engine imports this module as integrations.…).
from integrations.hlab_client import HlabClient, episode_keys

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register


def _chat(messages: List[Dict[str, Any]]) -> List[Dict[str, str]]:
    """Server messages -> chat-template messages ('tool' observations as role 'tool')."""
    return [{"role": m["role"], "content": m["content"]} for m in messages]


@register("hlab_agent")
class HlabAgentLoop(AgentLoopBase):
    """One hlab episode per row: sample an action, step the server, until done."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.response_length = self.config.actor_rollout_ref.rollout.response_length
        self.client = HlabClient()

    async def _ids(self, messages: List[Dict[str, str]], generation_prompt: bool) -> List[int]:
        return await self.loop.run_in_executor(
            None, lambda: self.tokenizer.apply_chat_template(messages, add_generation_prompt=generation_prompt, tokenize=True)
        )

    async def run(self, sampling_params: Dict[str, Any], **kwargs) -> AgentLoopOutput:
        keys = episode_keys(kwargs["extra_info"])
        ep = await asyncio.to_thread(
            self.client.create_episode, suite=keys["suite"], task=keys["task"], harness=keys["harness"], max_turns=keys.get("max_turns")
        )
        request_id = uuid4().hex
        view = _chat(ep["messages"])
        prompt_ids = await self._ids(view, True)
        response_ids: List[int] = []
        response_mask: List[int] = []
        out: Dict[str, Any] = {"reward": 0.0, "done": False}
        turns = 0
        try:
            while not out["done"] and len(response_ids) < self.response_length:
                # Sample from the harness's current view (exact even when it rewrites history).
                ids = await self._ids(view, True)
                gen = await self.server_manager.generate(request_id=request_id, prompt_ids=ids, sampling_params=sampling_params)
                action_ids = list(gen.token_ids)
                action = self.tokenizer.decode(action_ids, skip_special_tokens=True)
                budget_left = self.response_length - len(response_ids)
                cut_off = len(action_ids) >= budget_left
                out = await asyncio.to_thread(self.client.step, ep["episodeId"], action, cut_off)
                turns += 1
                response_ids += action_ids
                response_mask += [1] * len(action_ids)
                if out["done"]:
                    break
                obs_ids = self.tokenizer.encode(out["observation"], add_special_tokens=False)
                response_ids += obs_ids
                response_mask += [0] * len(obs_ids)
                view = _chat(out["messages"])
        finally:
            await asyncio.to_thread(self._delete, ep["episodeId"])
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids[: self.response_length],
            response_mask=response_mask[: self.response_length],
            num_turns=2 * turns + 1,
            reward_score=float(out.get("reward", 0.0)),
            metrics={},
        )

    def _delete(self, episode_id: str) -> None:
        try:
            self.client.delete_episode(episode_id)
        except Exception:  # expired or server gone: the episode is not reused
            pass
