# Ambient state: is what was compiled reused after a dynamo config flag changes,
# or when the same function is compiled with a second backend?
import torch
from torch._dynamo.utils import counters


def shifted_cos(x):
    return torch.cos(x) + 1


def report(label):
    print(f"{label:<44} unique_graphs={counters['stats']['unique_graphs']}")


torch.manual_seed(0)
x = torch.randn(8)

first = torch.compile(shifted_cos, backend="eager")
first(x)
report("compiled with backend='eager'")

torch._dynamo.config.suppress_errors = not torch._dynamo.config.suppress_errors
again = torch.compile(shifted_cos, backend="eager")
again(x)
report("config flag flipped, compiled again")

other = torch.compile(shifted_cos, backend="aot_eager")
other(x)
report("same function, backend='aot_eager'")
