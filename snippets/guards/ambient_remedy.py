# Ambient state set once, before the first compile, and one backend: do later compiles and calls
# reuse what was compiled?
import torch
from torch._dynamo.utils import counters


def shifted_cos(x):
    return torch.cos(x) + 1


def report(label):
    print(f"{label:<44} unique_graphs={counters['stats']['unique_graphs']}")


torch.manual_seed(0)
x = torch.randn(8)
torch._dynamo.config.suppress_errors = True  # set before anything compiles, never flipped after

first = torch.compile(shifted_cos, backend="eager")
first(x)
report("compiled with backend='eager'")
first(torch.randn(8))
report("a new tensor of the same shape")
again = torch.compile(shifted_cos, backend="eager")  # a second torch.compile, same backend, same config
again(x)
report("compiled again, same backend and config")
