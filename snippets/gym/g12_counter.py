# GYM·12 · A module's step counter, the second call
import torch
from torch._dynamo.utils import counters


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.lin(x) * min(1.0, self.step / 4)


torch.manual_seed(0)
compiled = torch.compile(Warmup(), backend="eager")
x = torch.randn(2, 4)
compiled(x)  # step 1: compiles
print("before:", counters["stats"]["unique_graphs"])
compiled(x)  # step 2: the same input
print("after:", counters["stats"]["unique_graphs"])
