# A weight-decay schedule written into SGD's param_groups as a Python float each step, the
# optimizer step compiled. Eight steps, eight weight decays; nothing else changes.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_weight_decay.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=0.0)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    weight_decay = 1e-4 * (i + 1)  # a Python float, new every step
    optimizer.param_groups[0]["weight_decay"] = weight_decay
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    print(f"step {i}: weight_decay={weight_decay:.4f} unique_graphs={counters['stats']['unique_graphs']}")
