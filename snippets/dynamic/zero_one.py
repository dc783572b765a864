# Marking a dimension dynamic, and what happens at sizes 0 and 1. Each way of marking
# starts from an empty cache; every call passes a fresh tensor, marked the same way.
import torch
from torch._dynamo.utils import counters

mark_unbacked = getattr(torch._dynamo, "mark_unbacked", None) or getattr(
    torch._dynamo.decorators, "mark_unbacked", None
)
MARKS = {
    "mark_dynamic": torch._dynamo.mark_dynamic,
    "maybe_mark_dynamic": torch._dynamo.maybe_mark_dynamic,
    "mark_unbacked": mark_unbacked,
}


def double(x):
    return x * 2


for name, mark in MARKS.items():
    if mark is None:
        print(f"{name}: does not exist in this torch")
        continue
    torch.compiler.reset()
    compiled = torch.compile(double, backend="eager")
    start = counters["stats"]["unique_graphs"]
    for rows in (4, 5, 1, 0):
        x = torch.ones(rows, 3)
        mark(x, 0)
        try:
            compiled(x)
            print(f"{name}: rows={rows} graphs={counters['stats']['unique_graphs'] - start}")
        except Exception as error:  # what this torch says about a marked size
            print(f"{name}: rows={rows} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
