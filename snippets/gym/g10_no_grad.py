# GYM·10 · The same call under torch.no_grad()
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
with torch.no_grad():
    double(x)  # second call: same tensor, grad mode off
print("after:", counters["stats"]["unique_graphs"])
