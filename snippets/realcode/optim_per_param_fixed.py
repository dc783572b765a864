# The same 12 parameters under one optimizer, its step compiled once.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_per_param_fixed.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(8 + i, 9 + i) for i in range(6)])
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="eager")
def step(optimizer):
    optimizer.step()


for i in range(3):
    model(torch.randn(2, 8)).sum().backward()
    step(optimizer)
    print(f"step {i} unique_graphs={counters['stats']['unique_graphs']}")
