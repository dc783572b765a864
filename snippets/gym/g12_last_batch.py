# GYM·12 · The last, shorter batch of the first epoch
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
compiled = torch.compile(model, backend="eager")
data = torch.randn(10, 4)
compiled(data[0:4]).sum().backward()  # batch 0: 4 rows, compiles
compiled(data[4:8]).sum().backward()  # batch 1: 4 rows
print("before:", counters["stats"]["unique_graphs"])
compiled(data[8:10]).sum().backward()  # batch 2: the last 2 rows
print("after:", counters["stats"]["unique_graphs"])
