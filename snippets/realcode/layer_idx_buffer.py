# The same stack, with the per-layer number stored as a buffer (a tensor) instead of read
# from a Python int in forward, so that every block can run the same graph.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/layer_idx_buffer.py
import torch
from torch._dynamo.utils import counters


class Block(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.register_buffer("scale", torch.tensor(1.0 / (layer_idx + 1)))
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return x + self.scale * self.lin(x)


torch.manual_seed(0)
blocks = [torch.compile(Block(i), backend="eager") for i in range(12)]
x = torch.randn(2, 8)
with torch.no_grad():
    for i, block in enumerate(blocks):
        x = block(x)
        print(f"block {i:>2}: unique_graphs={counters['stats']['unique_graphs']}")
