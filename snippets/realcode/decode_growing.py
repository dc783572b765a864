# A decode loop: each step appends one token's key to a cache that grows by one row.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/decode_growing.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
proj = torch.nn.Linear(16, 16)


def attend(query, keys):
    return torch.softmax(query @ keys.T, dim=-1) @ keys


step = torch.compile(attend, backend="eager")
keys = torch.randn(4, 16)  # the prompt's 4 keys
query = torch.randn(1, 16)
with torch.no_grad():
    for t in range(8):
        out = step(query, keys)
        keys = torch.cat([keys, proj(out)])  # the new token's key: one more row
        print(f"step {t} cache rows={len(keys) - 1}: unique_graphs={counters['stats']['unique_graphs']}")
