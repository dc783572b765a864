# GYM·12 · A tensor made under torch.inference_mode()
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


torch.manual_seed(0)
x = torch.randn(4, 4)
double(x)  # first call: compiles
print("before:", counters["stats"]["unique_graphs"])
with torch.inference_mode():
    y = torch.randn(4, 4)
double(y)  # second call: an inference tensor, called outside inference mode
print("after:", counters["stats"]["unique_graphs"])
