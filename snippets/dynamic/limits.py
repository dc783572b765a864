# The two recompile limits: their names and defaults on this torch, and what happens
# when a function hits the per-function limit.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/limits.py
from collections import Counter

import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

for name in ("recompile_limit", "accumulated_recompile_limit", "cache_size_limit", "accumulated_cache_size_limit"):
    if hasattr(dynamo_config, name):
        print(f"config.{name} = {getattr(dynamo_config, name)}")

served = Counter()  # how often each compiled entry actually ran


def counting_backend(gm, example_inputs):
    rows = example_inputs[0].shape[0]

    def run(*args):
        served[rows] += 1
        return gm.forward(*args)

    return run


limit_name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, limit_name, 2)
print(f"lowered config.{limit_name} to 2")


@torch.compile(backend=counting_backend, dynamic=False)
def double(x):
    return x * 2


for rows in (2, 3, 4, 5):
    double(torch.ones(rows))
    print(f"rows={rows:<3} unique_graphs={counters['stats']['unique_graphs']} served={dict(served)}")
double(torch.ones(2))
print(f"rows=2 again unique_graphs={counters['stats']['unique_graphs']} served={dict(served)}")
