# optim_plateau_tensor.py with one change: after each scheduler step, a float the scheduler wrote
# over the tensor learning rate is copied into the tensor, and the tensor put back in param_groups.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_plateau_restored.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
lr_t = torch.tensor(0.01)
optimizer = torch.optim.AdamW(model.parameters(), lr=lr_t)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=0)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
restored = 0
for i in range(7):
    lr = optimizer.param_groups[0]["lr"]  # what this step reads
    used = f"lr={float(lr):.5f} ({type(lr).__name__})"
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    scheduler.step(1.0)  # a validation loss that no longer improves
    group = optimizer.param_groups[0]
    if not isinstance(group["lr"], torch.Tensor):  # the scheduler wrote a float over the tensor
        lr_t.fill_(group["lr"])
        group["lr"] = lr_t
        restored += 1
    print(f"step {i}: {used} unique_graphs={counters['stats']['unique_graphs']}")
print(f"the loop put the tensor back after {restored} of 7 scheduler steps")
