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
# # Dynamic shapes and the cache limits
#
# The examples of the chapter, one per cell, to run on your own torch. Generated from the
# files under `snippets/dynamic/`; the chapter on the site shows what the build's torch printed.

# %%
import torch
from torch._dynamo.utils import counters


def fresh_start(**channels):
    """Empty dynamo caches and counters, and the given TORCH_LOGS channels, like a fresh process."""
    torch._dynamo.reset()
    counters.clear()
    torch._logging.set_logs(**{name: True for name in channels})

# %% [markdown]
# ## `new_sizes.py`

# %%
fresh_start(recompiles=True, guards=True)
# Call a compiled function with a new number of rows, again and again.
# Run it as: TORCH_LOGS=recompiles,guards python snippets/dynamic/new_sizes.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def column_sums(x):
    return x.sum(0) * 2


def report(label):
    print(f"{label:<10} unique_graphs={counters['stats']['unique_graphs']}")


for rows in (4, 5, 6, 7):
    column_sums(torch.ones(rows, 3))
    report(f"rows={rows}")
column_sums(torch.ones(1, 3))
report("rows=1")

# %% [markdown]
# ## `three_modes.py`

# %%
fresh_start()
# The same sequence of sizes under dynamic=None (the default), True, False, and mark_dynamic.
import torch
from torch._dynamo.utils import counters


def column_sums(x):
    return x.sum(0) * 2


def graphs_for(label, compiled, mark=False):
    torch.compiler.reset()
    before = counters["stats"]["unique_graphs"]
    for rows in (4, 5, 6, 7, 8):
        x = torch.ones(rows, 3)
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        compiled(x)
    print(f"{label:<34} graphs={counters['stats']['unique_graphs'] - before}")


graphs_for("dynamic=None (default)", torch.compile(column_sums, backend="eager"))
graphs_for("dynamic=True", torch.compile(column_sums, backend="eager", dynamic=True))
graphs_for("dynamic=False", torch.compile(column_sums, backend="eager", dynamic=False))
graphs_for("mark_dynamic(x, 0), dynamic=None", torch.compile(column_sums, backend="eager"), mark=True)

# %% [markdown]
# ## `scalars.py`

# %%
fresh_start(recompiles=True)
# Python ints, Python floats, and a value wrapped in a tensor, each changing on every call.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/scalars.py
import torch
from torch._dynamo.utils import counters


def shifted(x, amount):
    return x + amount


def graphs_for(label, values):
    torch.compiler.reset()
    compiled = torch.compile(shifted, backend="eager")
    before = counters["stats"]["unique_graphs"]
    for value in values:
        compiled(torch.ones(3), value)
    print(f"{label:<32} graphs={counters['stats']['unique_graphs'] - before}")


graphs_for("int: 1, 2, 3, 4", [1, 2, 3, 4])
graphs_for("float: 0.5, 1.5, 2.5, 3.5", [0.5, 1.5, 2.5, 3.5])
graphs_for("tensor(0.5) .. tensor(3.5)", [torch.tensor(v) for v in (0.5, 1.5, 2.5, 3.5)])

# %% [markdown]
# ## `cache_list.py`

# %%
fresh_start(recompiles=True)
# Five sizes with dynamic=False: five entries in one list. Watch the recompile log grow.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/cache_list.py
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager", dynamic=False)
def double(x):
    return x * 2


for rows in (2, 3, 4, 5, 6):
    double(torch.ones(rows))
    print(f"rows={rows} unique_graphs={counters['stats']['unique_graphs']}")

# %% [markdown]
# ## `cache_walk.py`

# %%
fresh_start()
# The cache is a list: time a call when a function holds n entries.
# These are this machine's figures; run it to get yours.
import time

import torch

torch._dynamo.config.cache_size_limit = 64  # room for every entry (recompile_limit on newer torch)


def double(x):
    return x * 2


def microseconds_per_call(n_entries, calls=3000):
    torch.compiler.reset()
    compiled = torch.compile(double, backend="eager", dynamic=False)
    inputs = [torch.ones(rows) for rows in range(2, 2 + n_entries)]
    for x in inputs:
        compiled(x)  # one static entry per size
    start = time.perf_counter()
    for i in range(calls):
        compiled(inputs[i % n_entries])  # cycle through every entry
    return (time.perf_counter() - start) / calls * 1e6


eager = torch.ones(2)
start = time.perf_counter()
for _ in range(3000):
    double(eager)
print(f"eager                 {(time.perf_counter() - start) / 3000 * 1e6:8.1f} us/call")
for n in (1, 2, 4, 8, 16):
    print(f"entries={n:<3}           {microseconds_per_call(n):8.1f} us/call")

# %% [markdown]
# ## `limits.py`

# %%
fresh_start(recompiles=True)
# The two recompile limits: their names and defaults on this torch, and what happens
# when a function hits the per-function limit.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/limits.py
from collections import Counter

import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

for name in ("recompile_limit", "accumulated_recompile_limit", "cache_size_limit", "accumulated_cache_size_limit"):
    if hasattr(dynamo_config, name):
        print(f"config.{name} = {getattr(dynamo_config, name)}")

served = Counter()  # how often each compiled entry actually ran


def counting_backend(gm, example_inputs):
    rows = example_inputs[0].shape[0]

    def run(*args):
        served[rows] += 1
        return gm.forward(*args)

    return run


limit_name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, limit_name, 2)
print(f"lowered config.{limit_name} to 2")


@torch.compile(backend=counting_backend, dynamic=False)
def double(x):
    return x * 2


for rows in (2, 3, 4, 5):
    double(torch.ones(rows))
    print(f"rows={rows:<3} unique_graphs={counters['stats']['unique_graphs']} served={dict(served)}")
double(torch.ones(2))
print(f"rows=2 again unique_graphs={counters['stats']['unique_graphs']} served={dict(served)}")

# %% [markdown]
# ## `stances.py`

# %%
fresh_start()
# Stances: tell torch.compile what to do when a call would recompile.
import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def double(x):
    return x * 2


def report(label):
    print(f"{label:<44} unique_graphs={counters['stats']['unique_graphs']}")


if not hasattr(torch.compiler, "set_stance"):
    print("torch.compiler.set_stance does not exist in this torch")
    raise SystemExit(0)

double(torch.ones(4))
report("default stance, rows=4")

torch.compiler.set_stance("fail_on_recompile")
double(torch.ones(4))
report("fail_on_recompile, rows=4 (cached)")
try:
    double(torch.ones(4, dtype=torch.float64))
    report("fail_on_recompile, float64 (new)")
except Exception as error:  # show what the stance raises
    print(f"fail_on_recompile, float64 (new) raised {type(error).__name__}: {str(error).splitlines()[0]}")

torch.compiler.set_stance("eager_on_recompile")
result = double(torch.ones(4, dtype=torch.float64))
report("eager_on_recompile, float64 (new)")
print(f"eager_on_recompile result dtype: {result.dtype}")

torch.compiler.set_stance("default")
double(torch.ones(4, dtype=torch.float64))
report("default again, float64")
