# GYM·12 · The next block of a stack, with a processor object of its own
import torch
from torch._dynamo.utils import counters


class Processor:
    def __call__(self, block, x):
        return torch.relu(block.lin(x))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.processor = Processor()  # a new object per block

    def forward(self, x):
        return x + self.processor(self, x)


torch.manual_seed(0)
torch.set_grad_enabled(False)  # inference
blocks = [torch.compile(Block(), backend="eager") for _ in range(3)]  # regional compilation
x = torch.randn(2, 4)
x = blocks[0](x)  # block 0: compiles
print("before:", counters["stats"]["unique_graphs"])
x = blocks[1](x)  # block 1: same class, its own processor
print("after:", counters["stats"]["unique_graphs"])
