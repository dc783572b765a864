# GYM·8 · The same tensor, passed by keyword
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: positional
print("before:", counters["stats"]["unique_graphs"])
double(x=x)  # second call: by keyword
print("after:", counters["stats"]["unique_graphs"])
