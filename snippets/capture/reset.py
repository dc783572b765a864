# torch.compiler.reset(): forget every compiled entry, then compile again from scratch.
# Run it as: TORCH_LOGS=recompiles python snippets/capture/reset.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


x = torch.ones(3)
double(x)
print("after the first call:  unique_graphs =", counters["stats"]["unique_graphs"])
double(x)
print("same tensor again:     unique_graphs =", counters["stats"]["unique_graphs"])
torch.compiler.reset()
print("after reset():         unique_graphs =", counters["stats"]["unique_graphs"])
double(x)
print("same tensor, compiled: unique_graphs =", counters["stats"]["unique_graphs"])
