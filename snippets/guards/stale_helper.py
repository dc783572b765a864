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
