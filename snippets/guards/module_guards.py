# Two instances of one module class, differing in a float attribute.
# Run it as: TORCH_LOGS=guards,recompiles python snippets/guards/module_guards.py
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
second = torch.compile(Scaled(3.0), backend="eager")
first(x)
first(x)
second(x)
print(f"two instances, k=2.0 and k=3.0 unique_graphs={counters['stats']['unique_graphs']}")
