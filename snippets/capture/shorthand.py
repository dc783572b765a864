# The shorthand to test: "recompiles happen when shapes or dtypes change".
# Run it as: TORCH_LOGS=recompiles python snippets/capture/shorthand.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


def report(label):
    print(f"{label:<28} unique_graphs={counters['stats']['unique_graphs']}")


torch.manual_seed(0)
double(torch.randn(4, 4))
report("4x4 float32")
double(torch.randn(4, 4))
report("4x4 float32, new values")
double(torch.randn(4, 4).double())
report("4x4 float64")
double(torch.randn(8, 4))
report("8x4 float32")
