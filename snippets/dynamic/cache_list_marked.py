# cache_list.py's five sizes with the varying dimension marked dynamic on each input: how many
# entries does the list hold, and how many recompiles check it?
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/cache_list_marked.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager", dynamic=False)
def double(x):
    return x * 2


for rows in (2, 3, 4, 5, 6):
    x = torch.ones(rows)
    torch._dynamo.mark_dynamic(x, 0)  # this dimension varies: one entry for every size
    double(x)
    print(f"rows={rows} unique_graphs={counters['stats']['unique_graphs']}")
