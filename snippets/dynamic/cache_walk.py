# The cache is a list: time a call when a function holds n entries.
# These are this machine's figures; run it to get yours.
import time

import torch

torch._dynamo.config.cache_size_limit = 64  # room for every entry (recompile_limit on newer torch)


def double(x):
    return x * 2


def microseconds_per_call(n_entries, calls=3000):
    torch.compiler.reset()
    compiled = torch.compile(double, backend="eager", dynamic=False)
    inputs = [torch.ones(rows) for rows in range(2, 2 + n_entries)]
    for x in inputs:
        compiled(x)  # one static entry per size
    start = time.perf_counter()
    for i in range(calls):
        compiled(inputs[i % n_entries])  # cycle through every entry
    return (time.perf_counter() - start) / calls * 1e6


eager = torch.ones(2)
start = time.perf_counter()
for _ in range(3000):
    double(eager)
print(f"eager                 {(time.perf_counter() - start) / 3000 * 1e6:8.1f} us/call")
for n in (1, 2, 4, 8, 16):
    print(f"entries={n:<3}           {microseconds_per_call(n):8.1f} us/call")
