# GYM·12 · The third step of a decode loop whose cache grows by one row
import torch
from torch._dynamo.utils import counters


def attend(query, keys):
    return torch.softmax(query @ keys.T, dim=-1) @ keys


torch.manual_seed(0)
step = torch.compile(attend, backend="eager")
query = torch.randn(1, 4)
step(query, torch.randn(4, 4))  # step 0: 4 cached rows, compiles
step(query, torch.randn(5, 4))  # step 1: 5 rows
print("before:", counters["stats"]["unique_graphs"])
step(query, torch.randn(6, 4))  # step 2: 6 rows
print("after:", counters["stats"]["unique_graphs"])
