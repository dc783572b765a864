# GYM·10 · A third instance whose float attribute differs
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
torch.compile(Scaled(2.0), backend="eager")(x)  # compiles
torch.compile(Scaled(3.0), backend="eager")(x)  # k differs: compiles again
print("before:", counters["stats"]["unique_graphs"])
torch.compile(Scaled(4.0), backend="eager")(x)  # a third instance, k differs again
print("after:", counters["stats"]["unique_graphs"])
