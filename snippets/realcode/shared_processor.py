# The same blocks, all holding one processor object, made once and shared by every layer.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/shared_processor.py
import torch
from torch._dynamo.utils import counters


class Processor:
    def __call__(self, attn, x):
        return torch.softmax(attn.q(x) @ attn.k(x).T, dim=-1) @ x


class Attention(torch.nn.Module):
    def __init__(self, processor):
        super().__init__()
        self.q = torch.nn.Linear(8, 8)
        self.k = torch.nn.Linear(8, 8)
        self.processor = processor

    def forward(self, x):
        return self.processor(self, x)


class Block(torch.nn.Module):
    def __init__(self, processor):
        super().__init__()
        self.attn = Attention(processor)

    def forward(self, x):
        return x + self.attn(x)


torch.manual_seed(0)
processor = Processor()
blocks = [torch.compile(Block(processor), backend="eager") for _ in range(4)]
x = torch.randn(2, 8)
with torch.no_grad():
    for i, block in enumerate(blocks):
        x = block(x)
        print(f"block {i}: unique_graphs={counters['stats']['unique_graphs']}")
