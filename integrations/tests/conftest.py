"""Session fixtures: a real `hlab serve` (one worker, any free port) and the scripted expert's
actions for the demonstrations the reward tests replay."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: (task, harness) pairs whose expert demonstration the reward tests replay through the adapters.
DEMOS = ["errands/todo-update/t2/1000003@S2-T2-O1-C0-W2", "errands/todo-update/t2/1000003@S2-T0-O0-C1-W0", "errands/todo-update/t2/1000003@bb-coding-cli"]


def _tsx(*args):
    return [os.path.join(ROOT, "node_modules", ".bin", "tsx"), *args]


@pytest.fixture(scope="session")
def serve_url():
    p = subprocess.Popen(_tsx("src/cli/main.ts", "serve", "--port", "0", "--json", "--workers", "1", "--max-episodes", "64"),
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        p.kill()
        raise RuntimeError("hlab serve did not start: " + p.stderr.read()[-2000:])
    yield json.loads(line)["listening"]
    p.terminate()
    p.wait(timeout=30)


@pytest.fixture(scope="session")
def catalogue(serve_url):
    from integrations.hlab_client import HlabClient

    return HlabClient(serve_url).harnesses()


@pytest.fixture(scope="session")
def expert_actions():
    out = subprocess.run(_tsx("integrations/tests/expert_demo.ts", *DEMOS), cwd=ROOT, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError("expert_demo.ts failed: " + out.stderr[-2000:])
    return json.loads(out.stdout)
