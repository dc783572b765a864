# five_calls.py with two changes: every input made contiguous, and scale a tensor updated in place.
# Run it as: TORCH_LOGS=recompiles python snippets/guards/five_calls_fixed.py
import torch
from torch._dynamo.utils import counters

scale = torch.tensor(3.0)  # a tensor global: updated in place, it keeps its guard


@torch.compile(backend="eager")
def scaled(x):
    return x * scale


def call(label, x):
    out = scaled(x.contiguous())  # one memory layout for every call; a copy when x is transposed
    same = torch.equal(out, x * scale)
    print(f"{label:<14} unique_graphs={counters['stats']['unique_graphs']} same_as_eager={same}")


torch.manual_seed(0)
call("contiguous", torch.randn(4, 4))
call("transposed", torch.randn(4, 4).t())
call("requires_grad", torch.randn(4, 4, requires_grad=True))
with torch.no_grad():
    call("no_grad", torch.randn(4, 4))
scale.fill_(4.0)
call("scale updated", torch.randn(4, 4))
