# The six instances again, the accumulated limit again lowered to 4, with the compiled function
# given each layer's weight and bias as tensors instead of the module object.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/instances_remedy.py
import torch
import torch._dynamo.config as dynamo_config
import torch.nn.functional as F
from torch._dynamo.utils import counters

torch.manual_seed(0)
ACC = next(n for n in ("accumulated_recompile_limit", "accumulated_cache_size_limit") if hasattr(dynamo_config, n))
setattr(dynamo_config, ACC, 4)
print(f"lowered config.{ACC} to 4")


@torch.compile(backend="eager")
def apply(weight, bias, x):
    return F.linear(x, weight, bias).relu()


layers = [torch.nn.Linear(4, 4) for _ in range(6)]
x = torch.randn(2, 4)
for i, layer in enumerate(layers):
    out = apply(layer.weight, layer.bias, x)
    same = torch.equal(out, layer(x).relu())
    print(f"layer {i}: unique_graphs={counters['stats']['unique_graphs']} output as eager: {same}")
