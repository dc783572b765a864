# One tensor, one float, one compile: what does dynamo check before reusing it?
# Run it as: TORCH_LOGS=guards python snippets/guards/anatomy.py
import torch


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


torch.manual_seed(0)
compiled = torch.compile(scaled_sin, backend="eager")
compiled(torch.randn(4), 2.0)
