"""Client of `hlab serve` (Harness Lab's HTTP JSON environment server), Python standard library only.

Used by the verl agent loop (verl/hlab_agent_loop.py) and the slime generate/reward functions
(slime/hlab_generate.py); tested against the real server in CI (test_hlab_client.py, run by
tests/unit/serve_python.test.ts). Protocol: docs/SCALE-OUT.md.

    client = HlabClient("http://127.0.0.1:8765")          # or $HLAB_SERVE_URL, $HLAB_SERVE_TOKEN
    ep = client.create_episode(suite="workspace", task="workspace/csv-sum/t2/1000017", harness="S1-T1-O2-C1-W1")
    out = client.step(ep["episodeId"], action_text)       # observation, messages, prompt, reward, done, ...
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

__all__ = ["HlabClient", "HlabError", "episode_keys", "Policy"]

#: A policy: (chat messages, rendered prompt) -> action text, or (action text, cut_off).
Policy = Callable[[List[Dict[str, Any]], str], Union[str, Tuple[str, bool]]]


class HlabError(Exception):
    """An error answer of the server: HTTP `status`, the bad `field` (or None), `code`, one-line `message`.

    `status` is 0 when no HTTP answer came (connection refused, timeout).
    """

    def __init__(self, status: int, field: Optional[str], code: str, message: str):
        super().__init__(f"hlab serve {status} ({field or '-'}): {message}")
        self.status = status
        self.field = field
        self.code = code
        self.message = message


def episode_keys(row: Dict[str, Any]) -> Dict[str, Any]:
    """The POST /v1/episodes keyword arguments of an exported row.

    Accepts a verl `extra_info` dict (its `interaction_kwargs` or `tools_kwargs.hlab.create_kwargs`),
    a slime `metadata` dict, or a dict with suite/task/harness/max_turns directly.
    Raises KeyError naming the first missing key.
    """
    src = row
    if isinstance(row.get("interaction_kwargs"), dict):
        src = row["interaction_kwargs"]
    elif isinstance(row.get("tools_kwargs"), dict) and "hlab" in row["tools_kwargs"]:
        src = row["tools_kwargs"]["hlab"]["create_kwargs"]
    for k in ("suite", "task", "harness"):
        if k not in src:
            raise KeyError(f"row has no '{k}' (expected an hlab export row: verl extra_info or slime metadata)")
    out = {"suite": src["suite"], "task": src["task"], "harness": src["harness"]}
    if src.get("max_turns") is not None:
        out["max_turns"] = int(src["max_turns"])
    return out


class HlabClient:
    """Blocking client (wrap calls in `asyncio.to_thread` from async code).

    base_url: e.g. "http://127.0.0.1:8765" (default $HLAB_SERVE_URL, else that address).
    token: bearer token (default $HLAB_SERVE_TOKEN; required when the server has one).
    timeout: seconds per request. retries: extra attempts on connection errors for
    requests that are safe to repeat (GET, DELETE); a step is never resent.
    """

    def __init__(self, base_url: Optional[str] = None, token: Optional[str] = None, timeout: float = 60.0, retries: int = 2):
        self.base_url = (base_url or os.environ.get("HLAB_SERVE_URL") or "http://127.0.0.1:8765").rstrip("/")
        self.token = token if token is not None else (os.environ.get("HLAB_SERVE_TOKEN") or None)
        self.timeout = timeout
        self.retries = retries

    # -- transport ---------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None, query: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        attempts = 1 + (self.retries if method in ("GET", "DELETE") else 0)
        for attempt in range(attempts):
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    return json.loads(res.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                raw = e.read().decode("utf-8", "replace")
                try:
                    err = json.loads(raw)
                except ValueError:
                    err = {"error": raw[:300] or e.reason, "field": None, "code": "http"}
                raise HlabError(e.code, err.get("field"), err.get("code", "http"), err.get("error", str(e.reason))) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                if attempt + 1 >= attempts:
                    raise HlabError(0, None, "unreachable", f"{method} {url}: {getattr(e, 'reason', e)}") from None
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    # -- endpoints ---------------------------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """GET /v1/health: ok, counters, limits, worker count."""
        return self._request("GET", "/v1/health")

    def harnesses(self) -> Dict[str, Any]:
        """GET /v1/harnesses: components (S, T, O, C, W with realizations), 243 composed ids, black-box ids."""
        return self._request("GET", "/v1/harnesses")

    def design(self, method: str = "oa", k: Optional[int] = None, seed: int = 0) -> Dict[str, Any]:
        """GET /v1/design: training ids, held-out ids with Hamming distances, balance, bounds."""
        return self._request("GET", "/v1/design", query={"method": method, "k": k, "seed": seed})

    def tasks(self, suite: str, split: str = "train", n: int = 20, seed: int = 0) -> Dict[str, Any]:
        """GET /v1/tasks: a balanced seeded draw of n task ids (with family, tier, instruction)."""
        return self._request("GET", "/v1/tasks", query={"suite": suite, "split": split, "n": n, "seed": seed})

    def create_episode(self, suite: str, harness: str, task: Union[str, int, None] = None, seed: Optional[int] = None,
                       max_turns: Optional[int] = None, split: Optional[str] = None, family: Optional[str] = None,
                       tier: Optional[int] = None) -> Dict[str, Any]:
        """POST /v1/episodes -> {episodeId, task, harness, maxTurns, messages, prompt}. Raises HlabError (400 names the field, 429 when full)."""
        body: Dict[str, Any] = {"suite": suite, "harness": harness}
        for key, value in (("task", task), ("seed", seed), ("maxTurns", max_turns), ("split", split), ("family", family), ("tier", tier)):
            if value is not None:
                body[key] = value
        return self._request("POST", "/v1/episodes", body)

    def step(self, episode_id: str, action: str, cut_off: bool = False) -> Dict[str, Any]:
        """POST /v1/episodes/{id}/step -> {observation, messages, prompt, reward, score, pass, done, truncated, tags, turn, ...}."""
        body: Dict[str, Any] = {"action": action}
        if cut_off:
            body["cutOff"] = True
        return self._request("POST", f"/v1/episodes/{urllib.parse.quote(episode_id)}/step", body)

    def get_episode(self, episode_id: str) -> Dict[str, Any]:
        """GET /v1/episodes/{id}: state, messages, transcript, result (None until done)."""
        return self._request("GET", f"/v1/episodes/{urllib.parse.quote(episode_id)}")

    def delete_episode(self, episode_id: str) -> Dict[str, Any]:
        """DELETE /v1/episodes/{id}."""
        return self._request("DELETE", f"/v1/episodes/{urllib.parse.quote(episode_id)}")

    # -- a whole episode ---------------------------------------------------------------------

    def run_episode(self, keys: Dict[str, Any], policy: Policy) -> Dict[str, Any]:
        """Run one episode of `policy` (see `Policy`) on the row keys (`episode_keys`) and delete it.

        Returns {episode_id, task, harness, turns: [{messages, prompt, action, cut_off, observation, kind}],
        reward, score, pass, terminated, truncated, truncation_reason, tags}.
        """
        ep = self.create_episode(suite=keys["suite"], task=keys["task"], harness=keys["harness"], max_turns=keys.get("max_turns"))
        messages, prompt = ep["messages"], ep["prompt"]
        turns: List[Dict[str, Any]] = []
        out: Dict[str, Any] = {}
        try:
            while True:
                act = policy(messages, prompt)
                action, cut_off = (act, False) if isinstance(act, str) else (act[0], bool(act[1]))
                out = self.step(ep["episodeId"], action, cut_off)
                turns.append({"messages": messages, "prompt": prompt, "action": action, "cut_off": cut_off,
                              "observation": out["observation"], "kind": out["kind"]})
                if out["done"]:
                    break
                messages, prompt = out["messages"], out["prompt"]
        finally:
            try:
                self.delete_episode(ep["episodeId"])
            except HlabError:
                pass  # expired or already gone: nothing to clean up
        return {"episode_id": ep["episodeId"], "task": ep["task"], "harness": ep["harness"], "turns": turns,
                "reward": out["reward"], "score": out["score"], "pass": out["pass"], "terminated": out["terminated"],
                "truncated": out["truncated"], "truncation_reason": out["truncationReason"], "tags": out["tags"]}
