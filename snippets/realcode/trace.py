# A structured trace of a whole run, for tlparse: set TORCH_TRACE to a directory, run, then
# `pip install tlparse` and `tlparse <the .log file in that directory>` for an HTML report.
# The run: a small training loop whose scheduler feeds a float into a compiled update.
# Run it as: TORCH_TRACE=trace python snippets/realcode/trace.py
import os

import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)


@torch.compile(backend="eager")
def update(weight, grad, lr):
    return weight - lr * grad


@torch.compile(backend="eager")
def loss_fn(model, x, y):
    return torch.nn.functional.mse_loss(model(x), y)


weight, grad = torch.randn(8), torch.randn(8)
x, y = torch.randn(16, 8), torch.randn(16, 1)
for epoch in range(4):
    loss_fn(model, x, y).backward()
    weight = update(weight, grad, optimizer.param_groups[0]["lr"])
    optimizer.step()
    optimizer.zero_grad()
    scheduler.step()

trace_dir = os.environ.get("TORCH_TRACE", "")
files = sorted(os.listdir(trace_dir)) if trace_dir and os.path.isdir(trace_dir) else []
print(f"trace files written: {len(files)}")
