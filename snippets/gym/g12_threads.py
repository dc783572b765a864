# GYM·12 · torch.set_num_threads between two calls
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
torch.set_num_threads(1)  # e.g. a data-loading library limiting threads
double(x)  # second call: same tensor
print("after:", counters["stats"]["unique_graphs"])
