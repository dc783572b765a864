# One tensor, one float, one compile: what does dynamo check before reusing it?
# Then time a call, eager and compiled, to set the guard check's cost beside a whole call.
# Run it as: TORCH_LOGS=guards python snippets/guards/anatomy.py
import time

import torch


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


torch.manual_seed(0)
compiled = torch.compile(scaled_sin, backend="eager")
x = torch.randn(4)
compiled(x, 2.0)  # the first call compiles, and logs the guards


def microseconds_per_call(fn, calls=2000):
    start = time.perf_counter()
    for _ in range(calls):
        fn(x, 2.0)
    return (time.perf_counter() - start) / calls * 1e6


print(f"eager call     {microseconds_per_call(scaled_sin):8.1f} us")
print(f"compiled call  {microseconds_per_call(compiled):8.1f} us")
