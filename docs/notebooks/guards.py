# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # What a guard checks
#
# The examples of the chapter, one per cell, to run on your own torch. Generated from the
# files under `snippets/guards/`; the chapter on the site shows what the build's torch printed.

# %%
import torch
from torch._dynamo.utils import counters


def fresh_start(**channels):
    """Empty dynamo caches and counters, and the given TORCH_LOGS channels, like a fresh process."""
    torch._dynamo.reset()
    counters.clear()
    torch._logging.set_logs(**{name: True for name in channels})

# %% [markdown]
# ## `anatomy.py`

# %%
fresh_start(guards=True)
# One tensor, one float, one compile: what does dynamo check before reusing it?
# Run it as: TORCH_LOGS=guards python snippets/guards/anatomy.py
import torch


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


torch.manual_seed(0)
compiled = torch.compile(scaled_sin, backend="eager")
compiled(torch.randn(4), 2.0)

# %% [markdown]
# ## `ambient.py`

# %%
fresh_start(recompiles=True)
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

# %% [markdown]
# ## `explain.py`

# %%
fresh_start()
# The same function as anatomy.py, asked for its guards as objects instead of text.
import torch


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


def builder_name(guard):
    fn = guard.create_fn
    return getattr(fn, "func", fn).__name__  # a functools.partial on some releases


torch.manual_seed(0)
# explain() resets dynamo's caches before it compiles: never call it mid-investigation.
report = torch._dynamo.explain(scaled_sin)(torch.randn(4), 2.0)
for guard in report.out_guards:
    print(f"{builder_name(guard):<30} {guard.name or '-'}")
print(f"{len(report.out_guards)} guard objects")

# %% [markdown]
# ## `five_calls.py`

# %%
fresh_start(recompiles=True)
# Five calls, one shape, one dtype. How many compiles?
# Run it as: TORCH_LOGS=recompiles python snippets/guards/five_calls.py
import torch
from torch._dynamo.utils import counters

scale = 3.0


@torch.compile(backend="eager")
def scaled(x):
    return x * scale


def report(label):
    print(f"{label:<14} unique_graphs={counters['stats']['unique_graphs']}")


torch.manual_seed(0)
scaled(torch.randn(4, 4))
report("contiguous")
scaled(torch.randn(4, 4).t())
report("transposed")
scaled(torch.randn(4, 4, requires_grad=True))
report("requires_grad")
with torch.no_grad():
    scaled(torch.randn(4, 4))
report("no_grad")
scale = 4.0
scaled(torch.randn(4, 4))
report("scale rebound")

# %% [markdown]
# ## `module_guards.py`

# %%
fresh_start(guards=True, recompiles=True)
# Two instances of one module class, differing in a float attribute.
# Run it as: TORCH_LOGS=guards,recompiles python snippets/guards/module_guards.py
import torch
from torch._dynamo.utils import counters


class Scaled(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.k = k

    def forward(self, x):
        return self.lin(x) * self.k


torch.manual_seed(0)
x = torch.randn(2, 4)
first = torch.compile(Scaled(2.0), backend="eager")
second = torch.compile(Scaled(3.0), backend="eager")
first(x)
first(x)
second(x)
print(f"two instances, k=2.0 and k=3.0 unique_graphs={counters['stats']['unique_graphs']}")

# %% [markdown]
# ## `module_counts.py`

# %%
fresh_start()
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


def rebuilt_in_eval_loop():
    for _ in range(5):
        model = torch.compile(Scaled(2.0), backend="eager")
        model(x)


for name, scenario in [
    ("two instances, different k", different_attributes),
    ("two instances, identical k", identical_attributes),
    ("ensemble of 16 identical members", ensemble_of_16),
    ("model rebuilt in a 5-step eval loop", rebuilt_in_eval_loop),
]:
    print(f"{name:<38} graphs={graphs_compiled_by(scenario)}")

# %% [markdown]
# ## `stale_helper.py`

# %%
fresh_start(recompiles=True)
# Rebind a module-level helper that a compiled function inlined. Which body runs?
# Run it as: TORCH_LOGS=recompiles python snippets/guards/stale_helper.py
import torch


def helper(t):
    return t * 2


@torch.compile(backend="eager")
def uses_helper(x):
    return helper(x)


x = torch.ones(3)
print("compiled, first call :", uses_helper(x).tolist())


def helper(t):  # same name, new function object, new body
    return t * 100


print("eager, after rebind  :", helper(x).tolist())
print("compiled, same shape :", uses_helper(x).tolist())
print("compiled, new shape  :", uses_helper(torch.ones(5)).tolist())
print("compiled, back to 3  :", uses_helper(x).tolist())
