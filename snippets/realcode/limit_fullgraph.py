# fullgraph=True and the recompile limit: a function that recompiles for every new int it is given,
# with the limit lowered to 2.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/limit_fullgraph.py
import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

limit_name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, limit_name, 2)
print(f"lowered config.{limit_name} to 2")


@torch.compile(backend="eager", fullgraph=True, dynamic=False)
def shift(x, n):
    return x + n


for n in range(4):
    try:
        shift(torch.ones(2), n)
        print(f"n={n}: unique_graphs={counters['stats']['unique_graphs']}")
    except Exception as error:  # show what the hit raises
        print(f"n={n}: raised {type(error).__name__}: {str(error).splitlines()[0]}")
