# A function that reaches the recompile limit, and what each change does to it: the same calls
# (4 sizes with a limit of 2) from an empty cache, then the settings this torch has for limits.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/limit_remedies.py
import inspect

import torch
import torch._dynamo.config as dynamo_config
from torch._dynamo.utils import counters

LIMIT = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
compiled_calls = 0  # calls that ran a compiled graph, counted by the backend


def counting_backend(gm, example_inputs):
    def run(*args):
        global compiled_calls
        compiled_calls += 1
        return gm.forward(*args)

    return run


def double(x):
    return x * 2


def calls(label, limit, dynamic=None, mark=False, **settings):
    global compiled_calls
    torch.compiler.reset()
    compiled_calls = 0
    start = counters["stats"]["unique_graphs"]
    fn = torch.compile(double, backend=counting_backend, dynamic=dynamic)
    with dynamo_config.patch(**{LIMIT: limit}, **settings):
        for rows in (2, 3, 4, 5):
            x = torch.ones(rows)
            if mark:
                torch._dynamo.mark_dynamic(x, 0)
            try:
                fn(x)
            except Exception as error:  # what this torch does at the limit with these settings
                print(f"{label}: rows={rows} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
    graphs = counters["stats"]["unique_graphs"] - start
    print(f"{label:<40} compiled calls={compiled_calls} of 4 graphs={graphs}")


print(f"the limit patched below: config.{LIMIT}")
calls("dynamic=False, limit 2", 2, dynamic=False)
calls("dynamic=False, limit 8", 8, dynamic=False)
calls("mark_dynamic(x, 0), limit 2", 2, dynamic=False, mark=True)
calls("default (automatic dynamic), limit 2", 2)
# the setting that raises at the limit, under either of its names
FAIL = next((n for n in ("fail_on_recompile_limit_hit", "fail_on_cache_limit_hit") if hasattr(dynamo_config, n)), None)
if FAIL:
    print(f"the setting that raises at the limit: config.{FAIL}")
    calls("raise at the limit, limit 2", 2, dynamic=False, **{FAIL: True})
else:
    print("a setting that raises at the limit: not in this torch")

for name in (
    "recompile_limit",
    "accumulated_recompile_limit",
    "cache_size_limit",
    "accumulated_cache_size_limit",
    "fail_on_recompile_limit_hit",
    "fail_on_cache_limit_hit",
    "error_on_recompile",
    "automatic_dynamic_shapes",
    "assume_static_by_default",
    "force_parameter_static_shapes",
    "allow_unspec_int_on_nn_module",
):
    print(f"config.{name}: {getattr(dynamo_config, name) if hasattr(dynamo_config, name) else 'not in this torch'}")
print(f"torch.compiler.set_stance: {'present' if hasattr(torch.compiler, 'set_stance') else 'not in this torch'}")
per_call = "recompile_limit" in inspect.signature(torch.compile).parameters
print(f"torch.compile(recompile_limit=...): {'present' if per_call else 'not in this torch'}")
