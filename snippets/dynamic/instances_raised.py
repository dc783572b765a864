# The six instances again, through one compiled function, with the accumulated limit raised to 8
# (the run above lowered it to 4): how many entries the six layers get when the limit has room.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/instances_raised.py
import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

torch.manual_seed(0)
ACC = next(n for n in ("accumulated_recompile_limit", "accumulated_cache_size_limit") if hasattr(dynamo_config, n))
setattr(dynamo_config, ACC, 8)
print(f"raised config.{ACC} to 8")


@torch.compile(backend="eager")
def apply(layer, x):
    return layer(x).relu()


layers = [torch.nn.Linear(4, 4) for _ in range(6)]
x = torch.randn(2, 4)
for i, layer in enumerate(layers):
    out = apply(layer, x)
    same = torch.equal(out, layer(x).relu())
    print(f"layer {i}: unique_graphs={counters['stats']['unique_graphs']} output as eager: {same}")
