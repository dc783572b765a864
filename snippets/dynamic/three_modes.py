# The same sequence of sizes under dynamic=None (the default), True, False, and mark_dynamic.
# Run it as: TORCH_LOGS=guards python snippets/dynamic/three_modes.py
import torch
from torch._dynamo.utils import counters


def column_sums(x):
    return x.sum(0) * 2


def graphs_for(label, compiled, mark=False):
    torch.compiler.reset()
    before = counters["stats"]["unique_graphs"]
    print(f"== {label}")
    for rows in (4, 5, 6, 7, 8):
        x = torch.ones(rows, 3)
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        compiled(x)
    print(f"{label:<34} graphs={counters['stats']['unique_graphs'] - before}")


graphs_for("dynamic=None (default)", torch.compile(column_sums, backend="eager"))
graphs_for("dynamic=True", torch.compile(column_sums, backend="eager", dynamic=True))
graphs_for("dynamic=False", torch.compile(column_sums, backend="eager", dynamic=False))
graphs_for("mark_dynamic(x, 0), dynamic=None", torch.compile(column_sums, backend="eager"), mark=True)
