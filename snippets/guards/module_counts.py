# How many graphs do common module patterns compile?
import torch
from torch._dynamo.utils import counters


class Scaled(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k

    def forward(self, x):
        return self.lin(x) * self.k


def graphs_compiled_by(scenario):
    torch.compiler.reset()  # start each scenario from an empty cache
    before = counters["stats"]["unique_graphs"]
    scenario()
    return counters["stats"]["unique_graphs"] - before


torch.manual_seed(0)
x = torch.randn(2, 4)


def different_attributes():
    for k in (2.0, 3.0):
        torch.compile(Scaled(k), backend="eager")(x)


def identical_attributes():
    for _ in range(2):
        torch.compile(Scaled(2.0), backend="eager")(x)


def ensemble_of_16():
    members = [torch.compile(Scaled(2.0), backend="eager") for _ in range(16)]
    for member in members:
        member(x)


def ensemble_of_4_different_k():
    members = [torch.compile(Scaled(k), backend="eager") for k in (2.0, 3.0, 4.0, 5.0)]
    for member in members:
        member(x)


def rebuilt_in_eval_loop():
    for _ in range(5):
        model = torch.compile(Scaled(2.0), backend="eager")
        model(x)


for name, scenario in [
    ("two instances, different k", different_attributes),
    ("two instances, identical k", identical_attributes),
    ("ensemble of 16 identical members", ensemble_of_16),
    ("ensemble of 4, each with its own k", ensemble_of_4_different_k),
    ("model rebuilt in a 5-step eval loop", rebuilt_in_eval_loop),
]:
    print(f"{name:<38} graphs={graphs_compiled_by(scenario)}")
