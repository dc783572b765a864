# GYM·10 · .contiguous() on a transposed tensor
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
double(x.t().contiguous())  # second call: transposed, then made contiguous
print("after:", counters["stats"]["unique_graphs"])
