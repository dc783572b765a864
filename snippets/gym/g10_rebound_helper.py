# GYM·10 · An inlined helper, rebound between calls
import torch
from torch._dynamo.utils import counters


def helper(t):
    return t * 2


@torch.compile(backend="eager")
def uses_helper(x):
    return helper(x)


x = torch.ones(3)
uses_helper(x)  # first call: compiles, inlining helper
print("before:", counters["stats"]["unique_graphs"])


def helper(t):  # same name, new body
    return t * 100


uses_helper(x)  # second call: same tensor, helper rebound
print("after:", counters["stats"]["unique_graphs"])
