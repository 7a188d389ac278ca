"""Tests of hlab_client.py against a real `hlab serve` (standard library unittest).

Run by tests/unit/serve_python.test.ts, which starts the server and sets:
  HLAB_SERVE_URL   the server
  HLAB_SERVE_TOKEN its bearer token
  HLAB_TEST_DEMO   JSON {suite, task, harness, actions}: an expert demonstration (must pass)
  HLAB_TEST_ROWS   JSON {verl_extra_info, slime_line}: one exported row of each format
By hand: start `hlab serve --token …`, export the variables, `python3 integrations/test_hlab_client.py`.
"""

import json
import os
import unittest

from hlab_client import HlabClient, HlabError, episode_keys


class HlabClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = HlabClient()  # $HLAB_SERVE_URL, $HLAB_SERVE_TOKEN
        cls.demo = json.loads(os.environ["HLAB_TEST_DEMO"])
        cls.rows = json.loads(os.environ["HLAB_TEST_ROWS"])

    def test_health_and_catalogue(self):
        self.assertTrue(self.client.health()["ok"])
        h = self.client.harnesses()
        self.assertEqual(len(h["composed"]), 243)
        self.assertEqual(h["blackbox"], ["bb-coding-cli", "bb-assistant"])
        d = self.client.design(method="oa", k=18, seed=0)
        self.assertEqual(len(d["training"]), 18)
        self.assertEqual(len(d["heldOut"]), 225)
        t = self.client.tasks("workspace", split="test", n=4, seed=1)
        self.assertEqual(len(t["tasks"]), 4)

    def test_expert_demonstration_passes(self):
        actions = iter(self.demo["actions"])
        seen = []

        def policy(messages, prompt):
            seen.append(prompt)
            self.assertIsInstance(messages, list)
            return next(actions)

        keys = {"suite": self.demo["suite"], "task": self.demo["task"], "harness": self.demo["harness"], "max_turns": 40}
        r = self.client.run_episode(keys, policy)
        self.assertEqual(r["reward"], 1)
        self.assertTrue(r["pass"])
        self.assertTrue(r["terminated"])
        self.assertEqual(len(r["turns"]), len(self.demo["actions"]))
        self.assertTrue(seen[0].startswith("<|system|>"))
        with self.assertRaises(HlabError) as e:
            self.client.get_episode(r["episode_id"])  # run_episode deleted it
        self.assertEqual(e.exception.status, 404)

    def test_exported_rows_run(self):
        verl_keys = episode_keys(self.rows["verl_extra_info"])
        slime_keys = episode_keys(json.loads(self.rows["slime_line"])["metadata"])
        self.assertEqual(set(verl_keys), {"suite", "task", "harness", "max_turns"})
        self.assertEqual(set(slime_keys), {"suite", "task", "harness", "max_turns"})
        for keys in (verl_keys, slime_keys):
            r = self.client.run_episode(keys, lambda m, p: "not a tool call")
            self.assertTrue(r["truncated"])
            self.assertEqual(r["truncation_reason"], "turns")
            self.assertEqual(len(r["turns"]), keys["max_turns"])
            self.assertEqual(r["reward"], 0)

    def test_errors_name_the_field(self):
        with self.assertRaises(HlabError) as e:
            self.client.create_episode(suite="workspace", harness="S7-T0-O0-C0-W0")
        self.assertEqual((e.exception.status, e.exception.field), (400, "harness"))
        with self.assertRaises(HlabError) as e:
            self.client.create_episode(suite="workspace", harness="bb-assistant", max_turns=10**6)
        self.assertEqual((e.exception.status, e.exception.field), (400, "maxTurns"))
        with self.assertRaises(HlabError) as e:
            self.client.step("no-such-episode", "ls")
        self.assertEqual((e.exception.status, e.exception.field), (404, "episodeId"))
        ep = self.client.create_episode(suite="errands", harness="bb-coding-cli", seed=3)
        with self.assertRaises(HlabError) as e:
            self.client.step(ep["episodeId"], "x" * 10**6)
        self.assertIn(e.exception.status, (400, 413))
        self.assertIn(e.exception.field, ("action", "body"))
        self.client.delete_episode(ep["episodeId"])
        with self.assertRaises(HlabError) as e:
            HlabClient(token="wrong-token-123").harnesses()
        self.assertEqual((e.exception.status, e.exception.field), (401, "authorization"))
        with self.assertRaises(HlabError) as e:
            HlabClient(base_url="http://127.0.0.1:9", retries=0, timeout=5).health()
        self.assertEqual(e.exception.status, 0)

    def test_episode_keys_rejects_foreign_rows(self):
        with self.assertRaises(KeyError):
            episode_keys({"question": "2+2"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
