# Python ints, Python floats, and a value wrapped in a tensor, each changing on every call.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/scalars.py
import torch
from torch._dynamo.utils import counters


def shifted(x, amount):
    return x + amount


def graphs_for(label, values):
    torch.compiler.reset()
    compiled = torch.compile(shifted, backend="eager")
    before = counters["stats"]["unique_graphs"]
    for value in values:
        compiled(torch.ones(3), value)
    print(f"{label:<32} graphs={counters['stats']['unique_graphs'] - before}")


graphs_for("int: 1, 2, 3, 4", [1, 2, 3, 4])
graphs_for("float: 0.5, 1.5, 2.5, 3.5", [0.5, 1.5, 2.5, 3.5])
graphs_for("tensor(0.5) .. tensor(3.5)", [torch.tensor(v) for v in (0.5, 1.5, 2.5, 3.5)])
