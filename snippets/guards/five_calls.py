# Five calls, one shape, one dtype. How many compiles?
# Run it as: TORCH_LOGS=recompiles python snippets/guards/five_calls.py
import torch
from torch._dynamo.utils import counters

scale = 3.0


@torch.compile(backend="eager")
def scaled(x):
    return x * scale


def report(label):
    print(f"{label:<14} unique_graphs={counters['stats']['unique_graphs']}")


torch.manual_seed(0)
scaled(torch.randn(4, 4))
report("contiguous")
scaled(torch.randn(4, 4).t())
report("transposed")
scaled(torch.randn(4, 4, requires_grad=True))
report("requires_grad")
with torch.no_grad():
    scaled(torch.randn(4, 4))
report("no_grad")
scale = 4.0
scaled(torch.randn(4, 4))
report("scale rebound")
