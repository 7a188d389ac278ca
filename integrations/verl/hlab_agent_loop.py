"""verl agent loop that runs each row's episode through `hlab serve`, token-exact.

Written against verl's experimental agent-loop API as of verl b178a3c
(verl/experimental/agent_loop: `AgentLoopBase`, `AgentLoopOutput`, `register`; the server
manager's `generate(request_id, prompt_ids=…, sampling_params=…) -> TokenOutput(token_ids,
log_probs, stop_reason, num_preempted)`). Tested end to end against a real `hlab serve` with a
fake server manager (integrations/tests/test_verl.py).

Rows come from `hlab export --format verl` (`agent_name: hlab_agent`,
`extra_info.interaction_kwargs` = {name, suite, task, harness, max_turns}). The episode runs as
integrations/hlab_episode.py describes: generation from token ids, the engine's ids and
log-probs kept (`response_logprobs`, for verl's rollout correction), observations as the chat
template's continuation (mask 0), special tokens and `<think>` removed before the harness sees
an action, `data.apply_chat_template_kwargs` passed to the template, each turn bounded by
`max_tokens` = min(max_action_tokens, what is left of `rollout.response_length`), and any
server error or engine abort ending the sample with reward 0 (`extra_fields.hlab_status`).

verl trains one sequence per row. For a harness that rewrites history (C1, C2, bb-coding-cli's
compaction) the episode has several segments; the loop returns the *last* one (it holds the
action that ended the episode and earned the reward) as the trained sequence, exact, and every
segment in `extra_fields["hlab_segments"]` (for a custom trainer that trains them all). Use
slime, or train those harnesses' earlier segments yourself, when every turn must be trained.

Config (`agent_loop.yaml` entry kwargs): `max_action_tokens` (default: response_length).
Environment: HLAB_SERVE_URL (default http://127.0.0.1:8765), HLAB_SERVE_TOKEN.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Dict, Optional
from uuid import uuid4

# The repository root must be on PYTHONPATH (the engine imports this module as integrations.…).
from integrations.hlab_client import HlabClient, episode_keys
from integrations.hlab_episode import Generation, Segment, run_episode

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register


@register("hlab_agent")
class HlabAgentLoop(AgentLoopBase):
    """One hlab episode per row; `max_action_tokens` caps each action (default: response_length)."""

    def __init__(self, *args, max_action_tokens: Optional[int] = None, **kwargs):
        super().__init__(*args, **kwargs)
        rollout = self.config.actor_rollout_ref.rollout
        self.response_length = int(rollout.response_length)
        self.prompt_length = int(rollout.prompt_length)
        self.max_action_tokens = int(max_action_tokens) if max_action_tokens is not None else self.response_length
        if self.max_action_tokens < 1:
            raise ValueError(f"hlab_agent max_action_tokens: expected an integer ≥ 1, got {max_action_tokens}")
        self.client = HlabClient()

    async def run(self, sampling_params: Dict[str, Any], **kwargs) -> AgentLoopOutput:
        keys = episode_keys(kwargs["extra_info"])
        request_id = uuid4().hex  # sticky: every turn of the episode goes to the same server (prefix cache)

        async def generate(prompt_ids, max_new_tokens):
            # A fresh dict per turn: verl's servers pop max_tokens from it.
            out = await self.server_manager.generate(
                request_id=request_id, prompt_ids=prompt_ids, sampling_params={**sampling_params, "max_tokens": max_new_tokens}
            )
            ids = list(out.token_ids)
            if out.stop_reason == "aborted":
                finish = "abort"
            else:  # TokenOutput has no length reason: a full-length action not ending in EOS was cut
                eos = getattr(self.tokenizer, "eos_token_id", None)
                finish = "length" if len(ids) >= max_new_tokens and not (ids and ids[-1] == eos) else "stop"
            return Generation(ids=ids, logprobs=list(out.log_probs) if out.log_probs else None, finish=finish, num_preempted=out.num_preempted)

        r = await run_episode(
            self.client,
            keys,
            self.tokenizer,
            generate,
            response_budget=self.response_length,
            max_action_tokens=self.max_action_tokens,
            max_context_tokens=self.prompt_length + self.response_length,
            max_prompt_tokens=self.prompt_length,
            chat_template_kwargs=dict(self.apply_chat_template_kwargs or {}),
        )
        if r.segments:
            seg = r.segments[-1]
        else:  # the episode could not be created: the row's prompt, an empty response, reward 0
            seg = Segment(prompt_ids=list(await self.apply_chat_template(list(kwargs["raw_prompt"]))))
        return AgentLoopOutput(
            prompt_ids=seg.prompt_ids,
            response_ids=seg.response_ids,
            response_mask=seg.response_mask,
            response_logprobs=seg.response_logprobs,
            reward_score=r.reward,
            # chat turns as upstream counts them: the prompt, each action, each observation appended
            num_turns=1 + seg.actions + seg.observations,
            metrics=r.metrics,
            extra_fields={
                "hlab_status": r.status,
                "hlab_error": r.error,
                "hlab_turns": r.turns,
                "hlab_score": r.score,
                "hlab_truncation_reason": r.truncation_reason,
                "hlab_segments": [asdict(s) for s in r.segments],
            },
        )
