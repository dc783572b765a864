# Compile a small function and count what dynamo produced.
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


compiled = torch.compile(scaled_sin, backend="eager")

x = torch.randn(4)
compiled(x, 2.0)  # first call: dynamo captures a graph and installs guards
compiled(x, 2.0)  # same kind of input: the guards pass, the entry is reused
print("graphs compiled:", counters["stats"]["unique_graphs"])
print("matches eager:  ", torch.allclose(compiled(x, 2.0), scaled_sin(x, 2.0)))
