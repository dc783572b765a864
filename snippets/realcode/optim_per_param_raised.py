# optim_per_param.py with the recompile limit raised to 16, above the 12 optimizers, before the
# first call (the setting is cache_size_limit on releases older than recompile_limit).
# Run it as: python snippets/realcode/optim_per_param_raised.py
import torch
from torch._dynamo.utils import counters

config = torch._dynamo.config
name = "recompile_limit" if hasattr(config, "recompile_limit") else "cache_size_limit"
setattr(config, name, 16)
print(f"raised {name} to {getattr(config, name)}")

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
