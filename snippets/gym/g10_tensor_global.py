# GYM·10 · A module-level tensor, updated in place between calls
import torch
from torch._dynamo.utils import counters

scale = torch.tensor(3.0)


@torch.compile(backend="eager")
def scaled(x):
    return x * scale


torch.manual_seed(0)
x = torch.randn(4, 4)
scaled(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
scale.fill_(4.0)  # the same tensor object, a new value
scaled(x)  # second call: same tensor, new global value
print("after:", counters["stats"]["unique_graphs"])
