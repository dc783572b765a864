# Five sizes with dynamic=False: five entries in one list. Watch the recompile log grow.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/cache_list.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager", dynamic=False)
def double(x):
    return x * 2


for rows in (2, 3, 4, 5, 6):
    double(torch.ones(rows))
    print(f"rows={rows} unique_graphs={counters['stats']['unique_graphs']}")
