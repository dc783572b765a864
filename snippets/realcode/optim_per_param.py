# One optimizer per parameter, as setups that step each parameter on its own build them, and
# every step through one compiled function: how many graphs the 12 steps compile on this torch.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_per_param.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(8 + i, 9 + i) for i in range(6)])
model(torch.randn(2, 8)).sum().backward()
optimizers = [torch.optim.SGD([p], lr=0.01) for p in model.parameters()]


@torch.compile(backend="eager")
def step(optimizer):
    optimizer.step()


for i, optimizer in enumerate(optimizers):
    step(optimizer)
    shape = tuple(optimizer.param_groups[0]["params"][0].shape)
    print(f"optimizer {i:<2} shape={shape} unique_graphs={counters['stats']['unique_graphs']}")
