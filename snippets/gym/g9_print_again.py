# GYM·9 · print() in the middle, new values
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def noisy(x):
    y = x * 2
    print("halfway")  # a graph break
    return y + 1


torch.manual_seed(0)
noisy(torch.randn(4))  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
noisy(torch.randn(4))  # second call: new values, same shape
print("after:", counters["stats"]["unique_graphs"])
