# GYM·8 · A list argument with one more element
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def total(xs):
    return sum(x * 2 for x in xs)


torch.manual_seed(0)
xs = [torch.randn(4) for _ in range(3)]
total(xs[:2])  # first call: a list of two tensors
print("before:", counters["stats"]["unique_graphs"])
total(xs)  # second call: a list of three
print("after:", counters["stats"]["unique_graphs"])
