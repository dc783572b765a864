# The first call has one row: mark_dynamic against maybe_mark_dynamic.
import torch
from torch._dynamo.utils import counters


def double(x):
    return x * 2


for name in ("mark_dynamic", "maybe_mark_dynamic"):
    torch.compiler.reset()
    compiled = torch.compile(double, backend="eager")
    start = counters["stats"]["unique_graphs"]
    for rows in (1, 4):
        x = torch.ones(rows, 3)
        getattr(torch._dynamo, name)(x, 0)
        try:
            compiled(x)
            print(f"{name}: rows={rows} graphs={counters['stats']['unique_graphs'] - start}")
        except Exception as error:  # a marked dimension that cannot stay dynamic
            print(f"{name}: rows={rows} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
