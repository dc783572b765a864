# The int counter again, with torch._dynamo.config.allow_unspec_int_on_nn_module turned on.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/module_counter_unspec.py
import torch
from torch._dynamo.utils import counters

if not hasattr(torch._dynamo.config, "allow_unspec_int_on_nn_module"):
    print("torch._dynamo.config.allow_unspec_int_on_nn_module does not exist in this torch")
    raise SystemExit(0)
torch._dynamo.config.allow_unspec_int_on_nn_module = True


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.lin(x) * min(1.0, self.step / 4)  # ramp the output up over 4 steps


torch.manual_seed(0)
model = Warmup()
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 8)
for step in range(6):
    compiled(x)
    print(f"step {step}: unique_graphs={counters['stats']['unique_graphs']}")
print(f"model.step after 6 calls: {int(model.step)}")
