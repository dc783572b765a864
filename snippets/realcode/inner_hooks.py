# The same blocks and hook, registered on the Linear layer inside each block instead of on the
# block that is compiled.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/inner_hooks.py
import torch
from torch._dynamo.utils import counters


def scale_input(module, args):
    return (args[0] * 0.5,)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return x + self.lin(x)


torch.manual_seed(0)
blocks = [Block() for _ in range(4)]
for block in blocks:
    block.lin.register_forward_pre_hook(scale_input)
compiled = [torch.compile(block, backend="eager") for block in blocks]
x = torch.randn(2, 8)
with torch.no_grad():
    for i, block in enumerate(compiled):
        x = block(x)
        print(f"block {i}: unique_graphs={counters['stats']['unique_graphs']}")
