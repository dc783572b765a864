# mark_static: keep one dimension static even when the function is compiled with dynamic=True.
import torch
from torch._dynamo.utils import counters


def double(x):
    return x * 2


for name in ("dynamic=True", "dynamic=True + mark_static(x, 0)"):
    torch.compiler.reset()
    compiled = torch.compile(double, backend="eager", dynamic=True)
    start = counters["stats"]["unique_graphs"]
    for rows in (4, 5, 6):
        x = torch.ones(rows, 3)
        if "mark_static" in name:
            torch._dynamo.mark_static(x, 0)
        compiled(x)
        print(f"{name}: rows={rows} graphs={counters['stats']['unique_graphs'] - start}")
