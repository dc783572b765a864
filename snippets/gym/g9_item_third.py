# GYM·9 · .item() feeding the rest of the function, a third value
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def normalize(x):
    peak = x.abs().max().item()  # a Python float: a graph break
    return x / peak


normalize(torch.tensor([1.0, -2.0, 0.5]))  # peak is 2.0
normalize(torch.tensor([1.0, -4.0, 0.5]))  # peak is 4.0
print("before:", counters["stats"]["unique_graphs"])
normalize(torch.tensor([1.0, -8.0, 0.5]))  # peak is 8.0
print("after:", counters["stats"]["unique_graphs"])
