# The run with a tensor learning rate and cycle_momentum=False again, with AdamW built with
# capturable=True (its step keeps its own counters on the parameters' device, as tensors).
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_capturable.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
try:
    optimizer = torch.optim.AdamW(model.parameters(), lr=torch.tensor(0.01), capturable=True)
except (TypeError, ValueError, RuntimeError) as error:
    print(f"AdamW refused capturable=True: {type(error).__name__}: {error}")
    raise SystemExit(0)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, total_steps=10, cycle_momentum=False
)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    lr = optimizer.param_groups[0]["lr"]  # what this step reads: the tensor, or a float written over it
    used = f"lr={float(lr):.4f} ({type(lr).__name__})"
    torch.nn.functional.mse_loss(model(x), y).backward()
    try:
        step()
    except Exception as error:  # a torch that cannot run this step on the CPU says why, in one line
        print(f"step {i}: {used} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
        break
    optimizer.zero_grad()
    scheduler.step()
    print(f"step {i}: {used} unique_graphs={counters['stats']['unique_graphs']}")
