# A learning-rate schedule feeding a Python float into a compiled update, read from the
# optimizer's param_groups as training loops do. Ten epochs, ten learning rates.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/lr_float.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)


@torch.compile(backend="eager")
def update(weight, grad, lr):
    return weight - lr * grad


weight, grad = torch.randn(8), torch.randn(8)
for epoch in range(10):
    lr = optimizer.param_groups[0]["lr"]  # a Python float, new every epoch
    weight = update(weight, grad, lr)
    optimizer.step()
    scheduler.step()
    print(f"epoch {epoch}: lr={lr:.4f} unique_graphs={counters['stats']['unique_graphs']}")
