# ReduceLROnPlateau over a learning rate given as a tensor: the validation loss stops improving, so
# the scheduler lowers the rate. Each line prints what the compiled step read from param_groups.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_plateau_tensor.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=torch.tensor(0.01))
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=0)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(7):
    lr = optimizer.param_groups[0]["lr"]  # what this step reads: the tensor, or a float written over it
    used = f"lr={float(lr):.5f} ({type(lr).__name__})"
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    scheduler.step(1.0)  # a validation loss that no longer improves
    print(f"step {i}: {used} unique_graphs={counters['stats']['unique_graphs']}")
