# GYM·8 · Same shape and dtype, new values
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
double(torch.randn(4, 4))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
double(torch.randn(4, 4))  # second call: other values, same shape and dtype
print("after:", counters["stats"]["unique_graphs"])
