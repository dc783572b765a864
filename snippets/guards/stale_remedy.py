# stale_helper.py with one line more: torch.compiler.reset() after the rebind drops what was
# compiled, so the next call compiles again and inlines the helper's new body.
import torch
from torch._dynamo.utils import counters


def helper(t):
    return t * 2


@torch.compile(backend="eager")
def uses_helper(x):
    return helper(x)


x = torch.ones(3)
print("compiled, first call  :", uses_helper(x).tolist())


def helper(t):  # same name, new function object, new body
    return t * 100


torch.compiler.reset()  # forget every compiled entry of this process
print("eager, after rebind   :", helper(x).tolist())
print("compiled, after reset :", uses_helper(x).tolist())
print("graphs compiled in all:", counters["stats"]["unique_graphs"])
