# Regional compilation of a stack of identical blocks: each block compiled on its own. The
# block reads its layer_idx in forward, so every block brings a new constant.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/layer_idx.py
import torch
from torch._dynamo.utils import counters


class Block(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        scale = 1.0 / (self.layer_idx + 1)  # depth-scaled residual
        return x + scale * self.lin(x)


torch.manual_seed(0)
blocks = [torch.compile(Block(i), backend="eager") for i in range(12)]
x = torch.randn(2, 8)
with torch.no_grad():
    for i, block in enumerate(blocks):
        x = block(x)
        print(f"block {i:>2}: unique_graphs={counters['stats']['unique_graphs']}")
