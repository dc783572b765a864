# Six instances of one module class through one compiled function, with the accumulated limit
# lowered to 4: how many entries the instances need on this torch, and which limit the run meets.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/instances.py
import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

torch.manual_seed(0)
ACC = next(n for n in ("accumulated_recompile_limit", "accumulated_cache_size_limit") if hasattr(dynamo_config, n))
LIMIT = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, ACC, 4)
print(f"lowered config.{ACC} to 4; config.{LIMIT} stays {getattr(dynamo_config, LIMIT)}")


@torch.compile(backend="eager")
def apply(layer, x):
    return layer(x).relu()


layers = [torch.nn.Linear(4, 4) for _ in range(6)]
x = torch.randn(2, 4)
for i, layer in enumerate(layers):
    out = apply(layer, x)
    same = torch.equal(out, layer(x).relu())
    print(f"layer {i}: unique_graphs={counters['stats']['unique_graphs']} output as eager: {same}")
