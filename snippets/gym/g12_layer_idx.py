# GYM·12 · The next block of a stack, compiled block by block
import torch
from torch._dynamo.utils import counters


class Block(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        scale = 1.0 / (self.layer_idx + 1)  # the block reads its index
        return x + scale * self.lin(x)


torch.manual_seed(0)
torch.set_grad_enabled(False)  # inference
blocks = [torch.compile(Block(i), backend="eager") for i in range(3)]  # regional compilation
x = torch.randn(2, 4)
x = blocks[0](x)  # block 0: compiles
print("before:", counters["stats"]["unique_graphs"])
x = blocks[1](x)  # block 1: same class, layer_idx=1
print("after:", counters["stats"]["unique_graphs"])
