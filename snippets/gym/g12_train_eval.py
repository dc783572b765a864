# GYM·12 · model.eval() after a training call
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.1))
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 4)
compiled(x)  # first call, in training mode: compiles
print("before:", counters["stats"]["unique_graphs"])
model.eval()
compiled(x)  # second call: the same model in eval mode
print("after:", counters["stats"]["unique_graphs"])
