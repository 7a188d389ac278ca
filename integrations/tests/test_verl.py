"""The verl agent loop end to end: a real `hlab serve` (behind a recording/fault-injecting proxy), a
fake verl server manager over a scripted engine, a Qwen-style template with a byte-level tokenizer."""

import asyncio
import importlib

import pytest

from integrations.tests.checks import assert_token_exact, filler_policy, rewrites
from integrations.tests.fakes import TOKENIZER, FakeServerManager, ScriptedEngine, ServeProxy, install_fake_verl, verl_config

REGISTRY = install_fake_verl()
loop_module = importlib.import_module("integrations.verl.hlab_agent_loop")


@pytest.fixture
def proxy(serve_url, monkeypatch):
    p = ServeProxy(serve_url)
    monkeypatch.setenv("HLAB_SERVE_URL", p.url)
    yield p
    p.close()


def harness_for(catalogue, which):
    """A composed id with the given C level, or the i-th black-box id the server reports."""
    if which.startswith("bb"):
        return catalogue["blackbox"][int(which[2:])]
    return next(h for h in catalogue["composed"] if f"-{which}-" in h)


def run(engine, harness, *, response_length=4096, max_turns=6, chat_kwargs=None, max_action_tokens=None, task="workspace/csv-sum/t2/1000017",
        with_logprobs=True):
    trainer, data = verl_config(response_length, chat_kwargs=chat_kwargs)
    manager = FakeServerManager(engine, with_logprobs)
    kw = {} if max_action_tokens is None else {"max_action_tokens": max_action_tokens}
    loop = REGISTRY["hlab_agent"](trainer_config=trainer, server_manager=manager, tokenizer=TOKENIZER, processor=None,
                                  dataset_cls=None, dataset_config=data, **kw)
    suite = task.split("/")[0]
    extra = {"interaction_kwargs": {"name": "hlab", "suite": suite, "task": task, "harness": harness, "max_turns": max_turns}}
    params = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "repetition_penalty": 1.0, "logprobs": True}
    out = asyncio.run(loop.run(params, extra_info=extra, raw_prompt=[{"role": "user", "content": "x"}]))
    return out, manager, params


def segments_of(out):
    return out.extra_fields["hlab_segments"]


@pytest.mark.parametrize("which", ["C0", "C1", "C2", "bb0", "bb1"])
def test_trained_sequence_is_what_the_engine_was_prompted_with(catalogue, proxy, which):
    harness = harness_for(catalogue, which)
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness)
    segs = segments_of(out)
    assert_token_exact(engine.calls, segs, views=proxy.views)
    assert len(segs) == 1 + rewrites(proxy.views)
    if which in ("C1", "C2"):
        assert len(segs) > 1, f"{harness} never rewrote its history in 6 turns: the multi-sequence path is untested"
    if which == "C0":
        assert len(segs) == 1
    last = segs[-1]
    assert (out.prompt_ids, out.response_ids, out.response_mask, out.response_logprobs) == (
        last["prompt_ids"], last["response_ids"], last["response_mask"], last["response_logprobs"])
    assert out.extra_fields["hlab_status"] == "truncated" and out.reward_score == 0.0
    assert out.extra_fields["hlab_turns"] == len(engine.calls) == 6


@pytest.mark.parametrize("demo", ["errands/todo-update/t2/1000003@S2-T2-O1-C0-W2", "errands/todo-update/t2/1000003@bb-coding-cli"])
def test_expert_with_think_and_end_token_passes(expert_actions, proxy, demo):
    task, harness = demo.split("@")
    actions = expert_actions[demo]
    engine = ScriptedEngine(lambda c, p: f"<think>\nplan step {c}\n</think>\n\n{actions[c]}")
    out, _, _ = run(engine, harness, task=task, max_turns=len(actions) + 2)
    assert out.reward_score == 1.0, out.extra_fields
    assert out.extra_fields["hlab_status"] == "completed"
    assert_token_exact(engine.calls, segments_of(out))
    assert all(c["ids"][-1] == TOKENIZER.im_end for c in engine.calls)  # the end token was sampled and trained


@pytest.mark.parametrize("status", [429, 503])
def test_server_error_mid_episode_ends_the_sample(catalogue, proxy, status):
    proxy.fail("step", 3, status)
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"))
    assert out.reward_score == 0.0
    assert out.extra_fields["hlab_status"] == "failed" and str(status) in out.extra_fields["hlab_error"]
    assert len(engine.calls) == 3
    assert_token_exact(engine.calls, segments_of(out))


def test_server_full_at_creation_gives_an_empty_sample(catalogue, proxy):
    proxy.fail("create", 1, 429)
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"))
    assert (out.reward_score, out.response_ids, out.response_mask, engine.calls) == (0.0, [], [], [])
    assert out.extra_fields["hlab_status"] == "failed" and out.num_turns == 1
    assert out.prompt_ids == TOKENIZER.apply_chat_template([{"role": "user", "content": "x"}], add_generation_prompt=True)


def test_each_turn_is_bounded_by_the_action_cap_and_the_remaining_budget(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    budget, cap = 900, 400
    out, manager, params = run(engine, harness_for(catalogue, "C0"), response_length=budget, max_action_tokens=cap, max_turns=10)
    used = 0
    for c, sp in zip(engine.calls, manager.sampling_params):
        assert sp["max_tokens"] == c["max_new"] == min(cap, budget - (len(c["prompt_ids"]) - len(out.prompt_ids)))
    assert len(out.response_ids) <= budget
    assert out.extra_fields["hlab_status"] == "truncated" and out.reward_score == 0.0
    assert "max_tokens" not in params  # the caller's sampling params are not changed


def test_an_action_cut_at_the_cap_ends_the_episode_truncated(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"), max_action_tokens=40)
    assert len(engine.calls) == 1 and engine.calls[0]["finish"] == "length" and len(out.response_ids) == 40
    assert out.extra_fields["hlab_status"] == "truncated" and out.extra_fields["hlab_truncation_reason"] == "action"


def test_chat_template_kwargs_reach_every_prompt(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"), chat_kwargs={"enable_thinking": False}, max_turns=3)
    empty_think = TOKENIZER.encode("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    for c in engine.calls:
        assert c["prompt_ids"][-len(empty_think) :] == empty_think
    assert_token_exact(engine.calls, segments_of(out))


def test_num_turns_and_metrics(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"), max_turns=3)
    assert out.num_turns == 1 + 3 + 2  # prompt, 3 actions, 2 observations (the last step ends the episode)
    assert out.metrics["generate_sequences"] > 0 and out.metrics["tool_calls"] > 0 and out.metrics["num_preempted"] == 0


def test_engine_abort_ends_the_sample(catalogue, proxy):
    engine = ScriptedEngine(filler_policy, abort_at=1)
    out, _, _ = run(engine, harness_for(catalogue, "C0"))
    assert out.extra_fields["hlab_status"] == "aborted" and out.reward_score == 0.0 and len(engine.calls) == 2
    assert_token_exact(engine.calls, segments_of(out))


def test_no_engine_log_probs_gives_none_rather_than_zeros(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"), max_turns=2, with_logprobs=False)
    assert out.response_logprobs is None and sum(out.response_mask) == sum(len(c["ids"]) for c in engine.calls)


def test_an_action_ending_in_eos_at_exactly_the_cap_is_not_cut(catalogue, proxy):
    n = len(TOKENIZER.encode(filler_policy(0, ""))) + 1  # the action and its <|im_end|>
    engine = ScriptedEngine(filler_policy)
    out, _, _ = run(engine, harness_for(catalogue, "C0"), max_action_tokens=n, max_turns=2)
    assert engine.calls[0]["finish"] == "stop" and len(engine.calls) == 2
    assert out.extra_fields["hlab_truncation_reason"] == "turns"
