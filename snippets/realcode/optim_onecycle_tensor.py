# The same schedule with AdamW's learning rate and betas given as tensors, so that a new setting
# could be new contents of the same tensor. Each line prints what the step read from param_groups.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_onecycle_tensor.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
try:
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=torch.tensor(0.01), betas=(torch.tensor(0.9), torch.tensor(0.999))
    )
except (TypeError, ValueError, RuntimeError) as error:
    print(f"AdamW refused tensor settings: {type(error).__name__}: {error}")
    raise SystemExit(0)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=10)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    group = optimizer.param_groups[0]
    lr, beta1 = group["lr"], group["betas"][0]  # what this step reads: a tensor, or a float written over it
    used = f"lr={float(lr):.4f} ({type(lr).__name__}) beta1={float(beta1):.4f} ({type(beta1).__name__})"
    torch.nn.functional.mse_loss(model(x), y).backward()
    try:
        step()
    except Exception as error:  # a torch that cannot run this step says why, in one line
        print(f"step {i}: {used} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
        break
    optimizer.zero_grad()
    scheduler.step()
    print(f"step {i}: {used} unique_graphs={counters['stats']['unique_graphs']}")
