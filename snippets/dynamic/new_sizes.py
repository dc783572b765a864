# Call a compiled function with a new number of rows, again and again.
# Run it as: TORCH_LOGS=recompiles,guards python snippets/dynamic/new_sizes.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def column_sums(x):
    return x.sum(0) * 2


def report(label):
    print(f"{label:<10} unique_graphs={counters['stats']['unique_graphs']}")


for rows in (4, 5, 6, 7):
    column_sums(torch.ones(rows, 3))
    report(f"rows={rows}")
column_sums(torch.ones(1, 3))
report("rows=1")
