# GYM·12 · torch.autocast around an evaluation that ran without it
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
compiled = torch.compile(model, backend="eager")
model.eval()
x = torch.randn(2, 4)
with torch.no_grad():
    compiled(x)  # evaluation: compiles
print("before:", counters["stats"]["unique_graphs"])
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    compiled(x)  # the same evaluation under autocast
print("after:", counters["stats"]["unique_graphs"])
