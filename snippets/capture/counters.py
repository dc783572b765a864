# What the counters count: one function with one graph break, called three times.
# Run it as: TORCH_LOGS=recompiles python snippets/capture/counters.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def smooth(x):
    y = torch.sin(x)
    torch._dynamo.graph_break()  # an explicit graph break (lesson 2 has the common causes)
    return torch.cos(y)


def report(label):
    frames = counters["frames"]["total"]
    graphs = counters["stats"]["unique_graphs"]
    breaks = sum(counters["graph_break"].values())
    print(f"{label:<22} frames={frames} unique_graphs={graphs} graph_breaks={breaks}")


x = torch.ones(3)
smooth(x)
report("first call")
smooth(x)
report("same tensor again")
smooth(x.double())
report("a float64 tensor")
