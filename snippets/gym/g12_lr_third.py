# GYM·12 · A scheduler's learning rate, as a Python float: the third epoch
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def sgd_step(param, grad, lr):
    return param - lr * grad


torch.manual_seed(0)
param, grad = torch.randn(4), torch.randn(4)
lrs = [0.1 * 0.5**epoch for epoch in range(3)]  # a step-decay schedule
param = sgd_step(param, grad, lrs[0])  # epoch 0: compiles
param = sgd_step(param, grad, lrs[1])  # epoch 1: lr halved
print("before:", counters["stats"]["unique_graphs"])
param = sgd_step(param, grad, lrs[2])  # epoch 2: halved again
print("after:", counters["stats"]["unique_graphs"])
