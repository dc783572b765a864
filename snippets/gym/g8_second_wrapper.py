# GYM·8 · A second torch.compile wrapper around the same function
import torch
from torch._dynamo.utils import counters


def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
torch.compile(double, backend="eager")(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
torch.compile(double, backend="eager")(x)  # second call: through a new wrapper
print("after:", counters["stats"]["unique_graphs"])
