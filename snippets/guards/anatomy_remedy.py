# The dump of anatomy.py compares alpha, a Python float, with 2.0. Three values of alpha, passed
# as floats and then as 0-d tensors: how many graphs does each way compile?
import torch
from torch._dynamo.utils import counters


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


def graphs_for(alphas):
    torch.compiler.reset()  # an empty cache for each way
    before = counters["stats"]["unique_graphs"]
    compiled = torch.compile(scaled_sin, backend="eager")
    same = all(torch.equal(compiled(x, a), scaled_sin(x, a)) for a in alphas)
    return counters["stats"]["unique_graphs"] - before, same


torch.manual_seed(0)
x = torch.randn(4)
for label, alphas in [
    ("alpha as a float", [2.0, 3.0, 4.0]),
    ("alpha as a 0-d tensor", [torch.tensor(a) for a in (2.0, 3.0, 4.0)]),
]:
    graphs, same = graphs_for(alphas)
    print(f"{label:<22} graphs={graphs} same_as_eager={same}")
