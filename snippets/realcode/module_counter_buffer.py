# The same warm-up, with the count kept in a tensor buffer that forward updates in place.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/module_counter_buffer.py
import torch
from torch._dynamo.utils import counters


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.register_buffer("step", torch.zeros(()))

    def forward(self, x):
        self.step += 1
        return self.lin(x) * torch.clamp(self.step / 4, max=1.0)  # ramp the output up over 4 steps


torch.manual_seed(0)
model = Warmup()
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 8)
for step in range(6):
    compiled(x)
    print(f"step {step}: unique_graphs={counters['stats']['unique_graphs']}")
print(f"model.step after 6 calls: {int(model.step)}")
