# GYM·12 · A second optimizer, over a parameter of the same shape, through one compiled step
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
first, second = torch.nn.Parameter(torch.randn(4)), torch.nn.Parameter(torch.randn(4))
first.grad, second.grad = torch.ones(4), torch.ones(4)
optimizers = [torch.optim.SGD([first], lr=0.01), torch.optim.SGD([second], lr=0.01)]


@torch.compile(backend="eager")
def step(optimizer):
    optimizer.step()


step(optimizers[0])  # first optimizer: compiles
print("before:", counters["stats"]["unique_graphs"])
step(optimizers[1])  # the second optimizer
print("after:", counters["stats"]["unique_graphs"])
