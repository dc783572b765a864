# GYM·9 · .item() feeding the rest of the function, with capture_scalar_outputs set
import torch
from torch._dynamo.utils import counters

torch._dynamo.config.capture_scalar_outputs = True  # keep .item() in the graph


@torch.compile(backend="eager")
def normalize(x):
    peak = x.abs().max().item()
    return x / peak


normalize(torch.tensor([1.0, -2.0, 0.5]))  # first call: peak is 2.0
print("before:", counters["stats"]["unique_graphs"])
normalize(torch.tensor([1.0, -4.0, 0.5]))  # second call: peak is 4.0
print("after:", counters["stats"]["unique_graphs"])
