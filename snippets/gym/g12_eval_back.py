# GYM·12 · Back to train() after an eval() pass
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.1))
compiled = torch.compile(model, backend="eager")
x = torch.randn(2, 4)
compiled(x)  # training step: compiles
model.eval()
compiled(x)  # validation: compiles for eval mode
model.train()
print("before:", counters["stats"]["unique_graphs"])
compiled(x)  # the next training step
print("after:", counters["stats"]["unique_graphs"])
