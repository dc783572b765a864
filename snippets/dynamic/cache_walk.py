# The cache is a list: time a call when a function holds n entries.
# These are this machine's figures; run it to get yours.
import time

import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

LIMIT = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, LIMIT, 64)  # room for every entry
print(f"config.{LIMIT} = {getattr(dynamo_config, LIMIT)}")


def double(x):
    return x * 2


def microseconds_per_call(n_sizes, calls=3000):
    torch.compiler.reset()
    start = counters["stats"]["unique_graphs"]
    compiled = torch.compile(double, backend="eager", dynamic=False)
    inputs = [torch.ones(rows) for rows in range(2, 2 + n_sizes)]
    for x in inputs:
        compiled(x)  # one static entry per size
    graphs = counters["stats"]["unique_graphs"] - start
    start = time.perf_counter()
    for i in range(calls):
        compiled(inputs[i % n_sizes])  # cycle through every size
    return graphs, (time.perf_counter() - start) / calls * 1e6


eager = torch.ones(2)
start = time.perf_counter()
for _ in range(3000):
    double(eager)
print(f"eager                          {(time.perf_counter() - start) / 3000 * 1e6:8.1f} us/call")
for n in (1, 2, 4, 8, 16):
    graphs, us = microseconds_per_call(n)
    print(f"sizes={n:<3} graphs compiled={graphs:<3} {us:8.1f} us/call")
