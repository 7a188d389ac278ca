"""The PyTorch CPU peer of `hlab bench` (src/bench/pytorch_peer.ts drives it).

The policy transformer of src/model/cpu_model.ts in PyTorch: GPT-2 pre-LN, learned positions,
causal attention, tanh-GELU MLP of width 4C, tied LM head; one SFT training step = forward,
cross-entropy at every position with a next token (the LM head over the full sequence), backward,
global-norm clip 1.0, AdamW (lr 1e-3, weight decay 0.01). Random ids and weights from a seed:
the bench compares speed, not values.

Protocol: one JSON object per line on stdin, one reply per line on stdout.
  {"op": "model", "C", "L", "NH", "V", "B", "T", "threads", "seed"}
      -> {"torch": version, "threads": n, "blas": {"path": the BLAS library mapped, "kind": see blas_in_use,
          "threads": OPENBLAS_NUM_THREADS or null}}
  {"op": "step"} -> {"ms": wall ms of one step, "loss": float}
"""
import ctypes
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, C, NH):
        super().__init__()
        self.NH = NH
        self.ln1 = nn.LayerNorm(C)
        self.qkv = nn.Linear(C, 3 * C)
        self.proj = nn.Linear(C, C)
        self.ln2 = nn.LayerNorm(C)
        self.fc = nn.Linear(C, 4 * C)
        self.fcproj = nn.Linear(4 * C, C)

    def forward(self, x, mask):
        B, T, C = x.shape
        hs = C // self.NH
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.NH, hs).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = att.masked_fill(mask[:T, :T], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.proj(y)
        return x + self.fcproj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, C, L, NH, V, T):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(T, C)
        self.blocks = nn.ModuleList(Block(C, NH) for _ in range(L))
        self.lnf = nn.LayerNorm(C)
        self.register_buffer("mask", torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1))
        # GPT-2's initialization (src/model/init.ts): N(0, 0.02) weights, zero biases, unit gains.
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif ".ln" in name or name.startswith("lnf"):
                nn.init.ones_(p)
            else:
                nn.init.normal_(p, std=0.02)

    def forward(self, ids):
        T = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x, self.mask)
        return self.lnf(x) @ self.wte.weight.t()  # tied LM head


def blas_in_use():
    """The shared library that provides the BLAS sgemm_ torch calls, and what it is.

    Debian's python3-torch links the generic libblas.so.3, which the alternatives system points at
    OpenBLAS when libopenblas0-* is installed and otherwise at the netlib reference BLAS
    (libblas3), whose GEMMs are several times slower: the peer's speed depends on it. The symbol
    is looked up from torch's own library (its dependency order, as its calls bind) and named
    by dladdr. kind: 'openblas' | 'mkl' | 'blis' | 'reference' (netlib) | 'unknown'.
    """
    class DlInfo(ctypes.Structure):
        _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p), ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]

    path = None
    try:
        lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
        fn = lib.sgemm_
        info = DlInfo()
        if ctypes.CDLL(None).dladdr(ctypes.cast(fn, ctypes.c_void_p), ctypes.byref(info)):
            path = os.path.realpath(info.fname.decode())
    except (OSError, AttributeError):
        pass
    if path is None:
        return {"path": None, "kind": "unknown"}
    for kind in ("openblas", "mkl", "blis"):
        if kind in path:
            return {"path": path, "kind": kind}
    return {"path": path, "kind": "reference" if "/blas/" in path else "unknown"}


def main():
    model = opt = ids = None
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "model":
            torch.set_num_threads(cmd["threads"])
            torch.manual_seed(cmd["seed"])
            model = Gpt(cmd["C"], cmd["L"], cmd["NH"], cmd["V"], cmd["T"])
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
            ids = torch.randint(0, cmd["V"], (cmd["B"], cmd["T"]))
            blas_threads = os.environ.get("OPENBLAS_NUM_THREADS")
            blas = {**blas_in_use(), "threads": int(blas_threads) if blas_threads else None}
            out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas}
        elif cmd["op"] == "step":
            t0 = time.perf_counter()
            logits = model(ids)
            V = logits.shape[-1]
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), ids[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            out = {"ms": (time.perf_counter() - t0) * 1000, "loss": loss.item()}
        else:
            out = {"error": f"unknown op {cmd['op']!r}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
