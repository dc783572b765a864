# The same loop, with both modes compiled before training starts: the validation compile
# happens up front instead of in the middle of the first epoch.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/train_eval_warm.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 1))
compiled = torch.compile(model, backend="eager")
batch = torch.randn(4, 8)

model.eval()
with torch.no_grad():
    compiled(batch)  # warm up validation
model.train()
compiled(batch)  # warm up training (its output is discarded)
print(f"warm-up:          unique_graphs={counters['stats']['unique_graphs']}")

for epoch in range(3):
    model.train()
    compiled(batch).sum().backward()
    print(f"epoch {epoch} train:    unique_graphs={counters['stats']['unique_graphs']}")
    model.eval()
    with torch.no_grad():
        compiled(batch)
    print(f"epoch {epoch} validate: unique_graphs={counters['stats']['unique_graphs']}")
