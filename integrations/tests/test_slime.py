"""The slime generate/reward functions end to end: a real `hlab serve` (behind a recording/fault-injecting
proxy), a fake SGLang /generate endpoint over HTTP, a Qwen-style template with a byte-level tokenizer."""

import asyncio
import importlib

import pytest

from integrations.tests.checks import assert_token_exact, filler_policy, rewrites
from integrations.tests.fakes import TOKENIZER, FakeSGLang, ScriptedEngine, ServeProxy, install_fake_slime, slime_args, slime_sampling_params
from integrations.tests.test_verl import harness_for

Sample = install_fake_slime()
gen_module = importlib.import_module("integrations.slime.hlab_generate")


@pytest.fixture
def proxy(serve_url, monkeypatch):
    p = ServeProxy(serve_url)
    monkeypatch.setenv("HLAB_SERVE_URL", p.url)
    yield p
    p.close()


def make_sample(harness, *, task="workspace/csv-sum/t2/1000017", max_turns=6, prompt=None, tools=None, index=7):
    meta = {"suite": task.split("/")[0], "task": task, "harness": harness, "max_turns": max_turns}
    if tools is not None:
        meta["tools"] = tools
    return Sample(index=index, prompt=prompt if prompt is not None else [], label=task, metadata=meta)


def run(engine, sample, *, max_new_tokens=4096, **arg_extra):
    sglang = FakeSGLang(engine)
    try:
        args = slime_args(sglang.url, **arg_extra)
        params = slime_sampling_params(max_new_tokens)
        out = asyncio.run(gen_module.generate(args, sample, params))
    finally:
        sglang.close()
    return (out if isinstance(out, list) else [out]), sglang, params


def segments_of(samples):
    return [{"prompt_ids": s.tokens[: len(s.tokens) - s.response_length], "response_ids": s.tokens[len(s.tokens) - s.response_length :],
             "response_mask": s.loss_mask, "response_logprobs": s.rollout_log_probs} for s in samples]


def opening_text(proxy_url, harness, task="workspace/csv-sum/t2/1000017", tools=None, **kw):
    from integrations.hlab_client import HlabClient

    c = HlabClient(proxy_url)
    ep = c.create_episode(suite=task.split("/")[0], task=task, harness=harness)
    c.delete_episode(ep["episodeId"])
    msgs = [{"role": m["role"], "content": m["content"]} for m in ep["messages"]]
    return TOKENIZER.apply_chat_template(msgs, tools=tools, tokenize=False, add_generation_prompt=True, **kw)


@pytest.mark.parametrize("which", ["C0", "C1", "C2", "bb0", "bb1"])
def test_every_sample_is_what_the_engine_was_prompted_with(catalogue, proxy, which):
    harness = harness_for(catalogue, which)
    engine = ScriptedEngine(filler_policy)
    samples, sglang, _ = run(engine, make_sample(harness))
    assert_token_exact(engine.calls, segments_of(samples), views=proxy.views)
    assert len(samples) == 1 + rewrites(proxy.views)
    if which in ("C1", "C2"):
        assert len(samples) > 1, f"{harness} never rewrote its history in 6 turns"
        assert {s.rollout_id for s in samples} == {7}
    for s in samples:
        assert s.status == Sample.Status.TRUNCATED and s.reward == 0.0 and s.metadata["hlab"]["segments"] == len(samples)
    assert all(p["return_logprob"] and "input_ids" in p and "text" not in p for p in sglang.payloads)


@pytest.mark.parametrize("demo", ["errands/todo-update/t2/1000003@S2-T2-O1-C0-W2", "errands/todo-update/t2/1000003@S2-T0-O0-C1-W0",
                                  "errands/todo-update/t2/1000003@bb-coding-cli"])
def test_expert_passes_with_slime_defaults_think_and_end_token(expert_actions, proxy, demo):
    task, harness = demo.split("@")
    actions = expert_actions[demo]
    engine = ScriptedEngine(lambda c, p: f"<think>\nplan step {c}\n</think>\n\n{actions[c]}")
    samples, sglang, _ = run(engine, make_sample(harness, task=task, max_turns=len(actions) + 2))
    assert sglang.payloads[0]["sampling_params"]["skip_special_tokens"] is False  # slime's default: <|im_end|> comes back
    assert [s.reward for s in samples] == [1.0] * len(samples)
    assert all(s.status == Sample.Status.COMPLETED for s in samples)
    assert asyncio.run(gen_module.reward_func(None, samples[0])) == 1.0
    assert_token_exact(engine.calls, segments_of(samples))


@pytest.mark.parametrize("status", [429, 503])
def test_server_error_mid_episode_fails_the_sample(catalogue, proxy, status):
    proxy.fail("step", 2, status)
    engine = ScriptedEngine(filler_policy)
    samples, _, _ = run(engine, make_sample(harness_for(catalogue, "C0")))
    (s,) = samples
    assert s.status == Sample.Status.FAILED and s.reward == 0.0 and str(status) in s.metadata["hlab"]["error"]
    assert_token_exact(engine.calls, segments_of(samples))


def test_server_full_at_creation_fails_the_sample(catalogue, proxy):
    proxy.fail("create", 1, 429)
    engine = ScriptedEngine(filler_policy)
    prompt = "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"
    (s,), _, _ = run(engine, make_sample(harness_for(catalogue, "C0"), prompt=prompt))
    assert s.status == Sample.Status.FAILED and s.reward == 0.0 and s.response_length == 0 and engine.calls == []
    assert s.tokens == TOKENIZER.encode(prompt)


def test_max_new_tokens_is_clamped_to_the_remaining_budget_and_the_action_cap(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    budget, cap = 1000, 300
    samples, sglang, params = run(engine, make_sample(harness_for(catalogue, "C0"), max_turns=12), max_new_tokens=budget, hlab_max_action_tokens=cap)
    (s,) = samples
    n0 = len(s.tokens) - s.response_length
    for c, p in zip(engine.calls, sglang.payloads):
        assert p["sampling_params"]["max_new_tokens"] == min(cap, budget - (len(c["prompt_ids"]) - n0))
    assert s.response_length <= budget and s.status == Sample.Status.TRUNCATED
    assert params["max_new_tokens"] == budget  # the caller's dict is not changed


def test_context_limit_bounds_the_sample(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    (s,), _, _ = run(engine, make_sample(harness_for(catalogue, "C0"), max_turns=12), rollout_max_context_len=2500)
    assert len(s.tokens) <= 2500 and s.status == Sample.Status.TRUNCATED


def test_the_rendered_sample_prompt_with_tools_and_kwargs_is_the_opening(catalogue, proxy):
    harness = harness_for(catalogue, "C0")
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    text = opening_text(proxy.url, harness, tools=tools, enable_thinking=False)
    proxy.views.clear()
    engine = ScriptedEngine(filler_policy)
    samples, _, _ = run(engine, make_sample(harness, prompt=text, tools=tools, max_turns=3), apply_chat_template_kwargs={"enable_thinking": False})
    assert engine.calls[0]["prompt_ids"] == TOKENIZER.encode(text)
    assert "# Tools" in TOKENIZER.decode(engine.calls[-1]["prompt_ids"])
    assert_token_exact(engine.calls, segments_of(samples))


def test_a_sample_prompt_that_is_not_the_opening_view_fails(catalogue, proxy):
    engine = ScriptedEngine(filler_policy)
    (s,), _, _ = run(engine, make_sample(harness_for(catalogue, "C0"), prompt="<|im_start|>user\nsomething else<|im_end|>\n"))
    assert s.status == Sample.Status.FAILED and "opening view" in s.metadata["hlab"]["error"] and engine.calls == []


def test_group_rm_gets_one_reward_per_group_member(catalogue, proxy):
    a = make_sample("x")
    a.metadata["hlab"] = {"reward": 1.0}
    b = make_sample("x")
    b.metadata["hlab"] = {"reward": 0.0}
    assert asyncio.run(gen_module.reward_func(None, [a, [b, b]])) == [1.0, 0.0]


def test_engine_abort_marks_the_sample_aborted(catalogue, proxy):
    engine = ScriptedEngine(filler_policy, abort_at=0)
    (s,), _, _ = run(engine, make_sample(harness_for(catalogue, "C0")))
    assert s.status == Sample.Status.ABORTED and s.reward == 0.0 and s.response_length == 3
