# GYM·12 · The next block of a stack, each block with the same pre-hook registered
import torch
from torch._dynamo.utils import counters


def halve(module, args):
    return (args[0] * 0.5,)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        return x + self.lin(x)


torch.manual_seed(0)
torch.set_grad_enabled(False)  # inference
blocks = [Block() for _ in range(3)]
for block in blocks:
    block.register_forward_pre_hook(halve)  # one function, registered on every block
compiled = [torch.compile(block, backend="eager") for block in blocks]  # regional compilation
x = torch.randn(2, 4)
x = compiled[0](x)  # block 0: compiles
print("before:", counters["stats"]["unique_graphs"])
x = compiled[1](x)  # block 1: same class, same hook function
print("after:", counters["stats"]["unique_graphs"])
