# GYM·12 · torch.inference_mode() for an evaluation compiled under torch.no_grad()
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
compiled = torch.compile(model, backend="eager")
model.eval()
x = torch.randn(2, 4)
with torch.no_grad():
    compiled(x)  # evaluation under no_grad: compiles
print("before:", counters["stats"]["unique_graphs"])
with torch.inference_mode():
    compiled(x)  # the same evaluation under inference_mode
print("after:", counters["stats"]["unique_graphs"])
