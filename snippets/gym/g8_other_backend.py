# GYM·8 · The same function compiled again with another backend
import torch
from torch._dynamo.utils import counters


def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
torch.compile(double, backend="eager")(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
torch.compile(double, backend="aot_eager")(x)  # the same input, through a wrapper with another backend
print("after:", counters["stats"]["unique_graphs"])
