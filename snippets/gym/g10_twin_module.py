# GYM·10 · A second instance of the same module, identical attributes
import torch
from torch._dynamo.utils import counters


class Scaled(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k

    def forward(self, x):
        return self.lin(x) * self.k


torch.manual_seed(0)
x = torch.randn(2, 4)
first = torch.compile(Scaled(2.0), backend="eager")
first(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
second = torch.compile(Scaled(2.0), backend="eager")
second(x)  # second call: another, identical instance
print("after:", counters["stats"]["unique_graphs"])
