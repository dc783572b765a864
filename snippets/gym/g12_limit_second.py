# GYM·12 · A second input size, with the recompile limit lowered to 2
import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

limit_name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, limit_name, 2)


@torch.compile(backend="eager", dynamic=False)
def double(x):
    return x * 2


double(torch.ones(2))  # first size: compiles
print("before:", counters["stats"]["unique_graphs"])
double(torch.ones(3))  # second size
print("after:", counters["stats"]["unique_graphs"])
