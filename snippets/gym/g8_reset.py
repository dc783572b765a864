# GYM·8 · torch.compiler.reset() between two calls
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
torch.compiler.reset()
double(x)  # second call: same tensor, after a reset
print("after:", counters["stats"]["unique_graphs"])
