# GYM·8 · A function with a graph break, called again
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def noisy(x):
    y = x * 2
    print("halfway")  # a graph break
    return y + 1


torch.manual_seed(0)
x = torch.randn(4, 4)
noisy(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
noisy(x)  # second call: same tensor
print("after:", counters["stats"]["unique_graphs"])
