# GYM·12 · A scheduler's learning rate, held in a tensor
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def sgd_step(param, grad, lr):
    return param - lr * grad


torch.manual_seed(0)
param, grad = torch.randn(4), torch.randn(4)
lr = torch.tensor(0.1)
param = sgd_step(param, grad, lr)  # epoch 0: compiles
print("before:", counters["stats"]["unique_graphs"])
lr.fill_(0.05)  # the scheduler halves lr in place
param = sgd_step(param, grad, lr)  # epoch 1
print("after:", counters["stats"]["unique_graphs"])
