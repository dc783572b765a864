# A model rebuilt and compiled in a loop (each step a new instance, the old one collected):
# does the number of compiled graphs keep growing, and does a recompile limit stop it?
# The limits are lowered to keep the run short; the question is whether the loop reaches them.
# Run it as: TORCH_LOGS=recompiles python snippets/releases/rebuild_loop.py
import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

new_names = hasattr(dynamo_config, "recompile_limit")
per_entry = "recompile_limit" if new_names else "cache_size_limit"
accumulated = "accumulated_recompile_limit" if new_names else "accumulated_cache_size_limit"
setattr(dynamo_config, per_entry, 4)
setattr(dynamo_config, accumulated, 8)
print(f"lowered config.{per_entry} to 4 and config.{accumulated} to 8")


class Scaled(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k

    def forward(self, x):
        return self.lin(x) * self.k


torch.manual_seed(0)
x = torch.randn(2, 4)
for step in range(1, 17):
    model = torch.compile(Scaled(2.0), backend="eager")
    model(x)
    if step in (1, 4, 8, 9, 12, 16):
        print(f"after {step:>2} rebuilds unique_graphs={counters['stats']['unique_graphs']}")
