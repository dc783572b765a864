# What the first compile of a model costs, timed four ways: the whole model or each of its
# identical blocks (regional compilation), and the whole model with dynamic=False or True.
# Each way is timed 5 times from an empty cache, after one warm-up compile, with the eager
# backend: the capture's cost, not a code generator's.
import statistics
import time

import torch
from torch._dynamo.utils import counters


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(32, 32)
        self.norm = torch.nn.LayerNorm(32)

    def forward(self, x):
        return self.norm(torch.relu(self.lin(x)) + x)


torch.manual_seed(0)
blocks = [Block() for _ in range(8)]
x = torch.randn(4, 32)


def whole(**options):
    model = torch.compile(torch.nn.Sequential(*blocks), backend="eager", **options)
    return lambda: model(x)


def regional():
    model = torch.nn.Sequential(*[torch.compile(b, backend="eager") for b in blocks])
    return lambda: model(x)


def first_call(make):
    torch.compiler.reset()
    call = make()
    before = counters["stats"]["unique_graphs"]
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000, counters["stats"]["unique_graphs"] - before


first_call(whole)  # a warm-up: the first compile of a process also pays one-time costs
for label, make in [
    ("whole model", whole),
    ("regional (each block)", regional),
    ("whole model, dynamic=False", lambda: whole(dynamic=False)),
    ("whole model, dynamic=True", lambda: whole(dynamic=True)),
]:
    runs = [first_call(make) for _ in range(5)]
    ms = sorted(t for t, _ in runs)
    print(
        f"{label:<27} graphs={runs[-1][1]} median={statistics.median(ms):7.1f} ms"
        f" min={ms[0]:7.1f} ms max={ms[-1]:7.1f} ms"
    )
