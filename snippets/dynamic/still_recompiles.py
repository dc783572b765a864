# dynamic=True, and the inputs it still compiles again for. Each case starts from an empty cache
# and calls one compiled function with an input that changes from call to call.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/still_recompiles.py
import dataclasses
import enum

import torch
from torch._dynamo.utils import counters


class Mode(enum.Enum):
    SUM = 1
    MEAN = 2


@dataclasses.dataclass
class Config:
    scale: int


class Scale(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k


def by_name(x, how):
    return x.sum() if how == "sum" else x.mean()


def by_flag(x, relu):
    return x.relu() if relu else x.abs()


def by_enum(x, how):
    return x.sum() if how is Mode.SUM else x.mean()


def by_dict(x, config):
    return x * config["scale"]


def by_config(x, config):
    return x * config.scale


def times(x, n):
    return x * n


def branch(x, n):
    return x * n if n > 2 else x - n


def repeated(x, n):
    for _ in range(n):
        x = x + 1
    return x


def double(x):
    return x * 2


def count(label, run):
    torch.compiler.reset()
    start = counters["stats"]["unique_graphs"]
    try:
        run()
    except Exception as error:  # what this torch says about these calls
        print(f"{label} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
        return
    print(f"{label:<40} graphs={counters['stats']['unique_graphs'] - start}")


def calls(fn, *arguments):
    compiled = torch.compile(fn, backend="eager", dynamic=True)
    return lambda: [compiled(*args) for args in arguments]


x = torch.ones(4, 3)
count("str: 'sum', 'mean'", calls(by_name, (x, "sum"), (x, "mean")))
count("bool: True, False", calls(by_flag, (x, True), (x, False)))
count("enum: Mode.SUM, Mode.MEAN", calls(by_enum, (x, Mode.SUM), (x, Mode.MEAN)))
count("dict value: 2, 3", calls(by_dict, (x, {"scale": 2}), (x, {"scale": 3})))
count("config object: scale 2, 3", calls(by_config, (x, Config(2)), (x, Config(3))))
count("int: 2, 3, 4", calls(times, (x, 2), (x, 3), (x, 4)))
count("int: 0, 1, 2", calls(times, (x, 0), (x, 1), (x, 2)))
count("int in an if: 3, 4, 1", calls(branch, (x, 3), (x, 4), (x, 1)))
count("int in range(n): 2, 3, 4", calls(repeated, (x, 2), (x, 3), (x, 4)))


results = []


def attribute_calls():
    module = Scale(2)
    compiled = torch.compile(module, backend="eager", dynamic=True)
    for k in (2, 3, 4):
        module.k = k
        results.append(compiled(x)[0, 0].item())


count("module attribute: k = 2, 3, 4", attribute_calls)
print(f"module attribute: compiled returned {results} (eager: [2.0, 3.0, 4.0])")
count("contiguous, then transposed", calls(double, (torch.ones(4, 3),), (torch.ones(3, 4).t(),)))
count("contiguous, then expanded", calls(double, (torch.ones(4, 3),), (torch.ones(1, 3).expand(4, 3),)))
count("rows: 4, then 1", calls(double, (torch.ones(4, 3),), (torch.ones(1, 3),)))

# mark_dynamic with a range, then a size outside it (a mark needs no dynamic=True)
torch.compiler.reset()
compiled = torch.compile(double, backend="eager")
start = counters["stats"]["unique_graphs"]
for rows, mark in ((4, True), (6, True), (16, False), (16, True)):
    t = torch.ones(rows, 3)
    label = f"range 2..8: rows={rows}, {'marked' if mark else 'not marked'}"
    try:
        if mark:
            torch._dynamo.mark_dynamic(t, 0, min=2, max=8)
        compiled(t)
        print(f"{label:<40} graphs={counters['stats']['unique_graphs'] - start}")
    except Exception as error:  # what this torch says about a size outside the marked range
        print(f"{label} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
