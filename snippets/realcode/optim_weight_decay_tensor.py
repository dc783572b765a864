# The weight-decay schedule again, the weight decay held in a tensor that the loop updates in place,
# the optimizer step compiled. What the step compiled, and the graph breaks dynamo counted.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_weight_decay_tensor.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
weight_decay = torch.tensor(0.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=weight_decay)
step = torch.compile(optimizer.step, backend="eager")

x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    weight_decay.fill_(1e-4 * (i + 1))  # new contents, the same tensor
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()
    optimizer.zero_grad()
    kind = type(optimizer.param_groups[0]["weight_decay"]).__name__
    print(f"step {i}: weight_decay={weight_decay.item():.4f} ({kind}) unique_graphs={counters['stats']['unique_graphs']}")
breaks = counters["graph_break"]
print(f"graph breaks counted: {sum(breaks.values())}")
for reason in breaks:  # its first line, and the source line it names, where it names one
    where = next((ln.split("code: ", 1)[1] for ln in reason.splitlines() if "code: " in ln), "")
    print("  break:", reason.strip().splitlines()[0][:120] + (f" (at: {where.strip()})" if where else ""))
