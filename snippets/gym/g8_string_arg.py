# GYM·8 · A string argument that changes
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def act(x, kind):
    return torch.relu(x) if kind == "relu" else torch.tanh(x)


torch.manual_seed(0)
x = torch.randn(4)
act(x, "relu")  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
act(x, "tanh")  # second call: another string
print("after:", counters["stats"]["unique_graphs"])
