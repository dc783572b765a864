# OneCycleLR moves AdamW's learning rate and its first beta every step, as Python floats in
# param_groups, and the optimizer step itself is compiled. Eight steps, eight settings.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_onecycle.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=10)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    group = optimizer.param_groups[0]
    lr, beta1 = group["lr"], group["betas"][0]  # Python floats, new every step
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    scheduler.step()
    print(f"step {i}: lr={lr:.4f} beta1={beta1:.4f} unique_graphs={counters['stats']['unique_graphs']}")
