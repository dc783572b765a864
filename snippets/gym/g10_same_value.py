# GYM·10 · A module-level float, rebound to an equal value
import torch
from torch._dynamo.utils import counters

scale = 3.0


@torch.compile(backend="eager")
def scaled(x):
    return x * scale


torch.manual_seed(0)
x = torch.randn(4, 4)
scaled(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
scale = 6.0 / 2  # a new float object, equal to the old one
scaled(x)  # second call: same tensor
print("after:", counters["stats"]["unique_graphs"])
