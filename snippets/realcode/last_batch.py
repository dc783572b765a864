# Two epochs over 10 samples in batches of 4: the last batch of each epoch has 2 rows.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/last_batch.py
import torch
from torch._dynamo.utils import counters
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
compiled = torch.compile(model, backend="eager")
loader = DataLoader(TensorDataset(torch.randn(10, 8)), batch_size=4)

for epoch in range(2):
    for i, (batch,) in enumerate(loader):
        compiled(batch).sum().backward()
        print(f"epoch {epoch} batch {i} rows={len(batch)}: unique_graphs={counters['stats']['unique_graphs']}")
