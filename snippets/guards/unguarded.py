# Two changes no guard sees. A helper rebound under a compile told to skip the guards on
# globals, and a setting read through a function dynamo was told returns a constant.
# Run it as: TORCH_LOGS=recompiles python snippets/guards/unguarded.py
import torch

x = torch.ones(3)


def helper(t):
    return t * 2


def uses_helper(x):
    return helper(x)


# 1. guard_filter_fn: drop guards before dynamo installs them (only on releases that have it)
skip_globals = getattr(torch.compiler, "skip_guard_on_globals_unsafe", None)
if skip_globals is None:
    print("skip_guard_on_globals_unsafe : not available on this torch")
else:
    filtered = torch.compile(uses_helper, backend="eager", options={"guard_filter_fn": skip_globals})
    try:
        print("filtered, first call         :", filtered(x).tolist())
    except Exception as error:  # a release that has the filter but not the option
        print(f"guard_filter_fn              : not accepted by this torch ({type(error).__name__})")
    else:

        def helper(t):  # same name, new function object, new body
            return t * 100

        print("eager, after rebind          :", helper(x).tolist())
        print("filtered, after rebind       :", filtered(x).tolist())

# 2. assume_constant_result: dynamo calls the function once while tracing and keeps the value
settings = {"scale": 2}
assume_constant_result = getattr(torch._dynamo, "assume_constant_result", None)
if assume_constant_result is None:
    print("assume_constant_result       : not available on this torch")
else:

    @assume_constant_result
    def current_scale():
        return settings["scale"]

    read_scale = current_scale  # the function itself, for the eager comparison below

    @torch.compile(backend="eager")
    def scaled(x):
        return x * current_scale()

    print("constant, first call         :", scaled(x).tolist())
    settings["scale"] = 100
    print("eager, after the change      :", (x * read_scale()).tolist())
    print("constant, after the change   :", scaled(x).tolist())
