# The same epochs with drop_last=True: the short batch is never drawn.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/last_batch_dropped.py
import torch
from torch._dynamo.utils import counters
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
compiled = torch.compile(model, backend="eager")
loader = DataLoader(TensorDataset(torch.randn(10, 8)), batch_size=4, drop_last=True)

for epoch in range(2):
    for i, (batch,) in enumerate(loader):
        compiled(batch).sum().backward()
        print(f"epoch {epoch} batch {i} rows={len(batch)}: unique_graphs={counters['stats']['unique_graphs']}")
