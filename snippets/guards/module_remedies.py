# module_counts.py's ensemble of 4, each member with its own k: k as a float attribute, then k as
# a buffer (a tensor), then k as a buffer with inline_inbuilt_nn_modules set the other way from its
# default, where torch has it.
import warnings

import torch
from torch._dynamo.utils import counters


class FloatK(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k

    def forward(self, x):
        return self.lin(x) * self.k


class BufferK(FloatK):
    def __init__(self, k):
        super().__init__(k)
        del self.k
        self.register_buffer("k", torch.tensor(k))  # a tensor: its value is data, not a guard


def graphs_for(cls):
    torch.compiler.reset()  # each way from an empty cache
    before = counters["stats"]["unique_graphs"]
    for k in (2.0, 3.0, 4.0, 5.0):
        torch.compile(cls(k), backend="eager")(x)
    return counters["stats"]["unique_graphs"] - before


torch.manual_seed(0)
x = torch.randn(2, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    default = getattr(torch._dynamo.config, "inline_inbuilt_nn_modules", None)
if default is not None:
    print(f"inline_inbuilt_nn_modules by default: {default}")
for w in caught:
    print(f"reading it warned: {w.category.__name__}: {str(w.message).split('. ')[0]}")
print(f"{'k as a float attribute':<44} graphs={graphs_for(FloatK)}")
print(f"{'k as a buffer':<44} graphs={graphs_for(BufferK)}")
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch._dynamo.config.inline_inbuilt_nn_modules = not default
except AttributeError as error:
    print(f"inline_inbuilt_nn_modules: not on this torch ({type(error).__name__})")
else:
    for w in caught:
        print(f"setting it warned: {w.category.__name__}: {str(w.message).split('. ')[0]}")
    print(f"{f'k as a buffer, inline_inbuilt_nn_modules={not default}':<44} graphs={graphs_for(BufferK)}")
