# The learning rate in a tensor, and OneCycleLR told to leave the betas alone
# (cycle_momentum=False): the one setting that still moves is meant to reach the step inside a tensor.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_onecycle_fixed.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=torch.tensor(0.01))
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, total_steps=10, cycle_momentum=False
)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    lr = optimizer.param_groups[0]["lr"]  # what this step reads: the tensor, or a float written over it
    used = f"lr={float(lr):.4f} ({type(lr).__name__})"
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    scheduler.step()
    print(f"step {i}: {used} unique_graphs={counters['stats']['unique_graphs']}")
