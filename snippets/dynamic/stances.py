# Stances: tell torch.compile what to do when a call would recompile.
import torch
from torch._dynamo.utils import counters


def double(x):
    return x * 2


compiled = torch.compile(double, backend="eager")


def report(label):
    print(f"{label:<44} unique_graphs={counters['stats']['unique_graphs']}")


if not hasattr(torch.compiler, "set_stance"):
    print("torch.compiler.set_stance does not exist in this torch")
    raise SystemExit(0)

compiled(torch.ones(4))
report("default stance, rows=4")

torch.compiler.set_stance("fail_on_recompile")
compiled(torch.ones(4))
report("fail_on_recompile, rows=4 (cached)")
try:
    compiled(torch.ones(4, dtype=torch.float64))
    report("fail_on_recompile, float64 (new)")
except Exception as error:  # show what the stance raises
    print(f"fail_on_recompile, float64 (new) raised {type(error).__name__}: {str(error).splitlines()[0]}")

torch.compiler.set_stance("eager_on_recompile")
x64 = torch.ones(4, dtype=torch.float64)
result = compiled(x64)
report("eager_on_recompile, float64 (new)")
print(f"eager_on_recompile result equals eager double(x): {torch.equal(result, double(x64))}")

torch.compiler.set_stance("default")
compiled(x64)
report("default again, float64")
