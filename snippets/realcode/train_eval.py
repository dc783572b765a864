# A training loop that validates after every epoch: model.train() and model.eval() toggle the
# `training` flag of every submodule the compiled forward reads.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/train_eval.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.1), torch.nn.Linear(8, 1))
compiled = torch.compile(model, backend="eager")
batch = torch.randn(4, 8)

for epoch in range(3):
    model.train()
    compiled(batch).sum().backward()
    print(f"epoch {epoch} train:    unique_graphs={counters['stats']['unique_graphs']}")
    model.eval()
    with torch.no_grad():
        compiled(batch)
    print(f"epoch {epoch} validate: unique_graphs={counters['stats']['unique_graphs']}")
