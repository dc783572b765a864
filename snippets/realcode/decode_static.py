# The same decode loop with a static cache: 12 rows allocated up front, a mask hides the unused ones.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/decode_static.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
proj = torch.nn.Linear(16, 16)


def attend(query, keys, used):
    scores = (query @ keys.T).masked_fill(~used, float("-inf"))
    return torch.softmax(scores, dim=-1) @ keys


step = torch.compile(attend, backend="eager")
keys = torch.zeros(12, 16)  # the static cache: room for 12 keys
keys[:4] = torch.randn(4, 16)  # the prompt's 4 keys
used = torch.arange(12) < 4
query = torch.randn(1, 16)
with torch.no_grad():
    for t in range(8):
        out = step(query, keys, used)
        n = 4 + t
        keys[n] = proj(out)[0]  # write the new key in place
        used[n] = True
        print(f"step {t} cache rows={n}: unique_graphs={counters['stats']['unique_graphs']}")
