# Three inputs that change between calls, each run as is and then with one change at the call:
# requires_grad (detach), dtype (cast to one dtype) and a list's length (stack into one tensor).
# Run it as: TORCH_LOGS=recompiles python snippets/guards/kinds_remedies.py
import torch
from torch._dynamo.utils import counters


def scaled(x):
    return torch.sin(x) * 2


def total(xs):  # a list of tensors, summed one by one
    out = xs[0]
    for t in xs[1:]:
        out = out + t
    return out


def total_stacked(stacked):  # the same tensors, stacked into one
    return stacked.sum(0)


def run(label, fn, calls):
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(fn, backend="eager")
    same = all(torch.allclose(compiled(*args), fn(*args)) for args in calls)
    print(f"{label:<30} graphs={counters['stats']['unique_graphs']} same_as_eager={same}")
    return compiled


torch.manual_seed(0)
x = torch.randn(8)
w = torch.randn(8, requires_grad=True)
run("requires_grad as is", scaled, [(x,), (w,)])
run("requires_grad, detached", scaled, [(x.detach(),), (w.detach(),)])
print(f"detached: the output's requires_grad={scaled(w.detach()).requires_grad} (as is: {scaled(w).requires_grad})")

x64 = torch.randn(8, dtype=torch.float64)
run("dtype as is", scaled, [(x,), (x64,)])
run("dtype, cast to float32", scaled, [(x,), (x64.to(torch.float32),)])
print(f"cast: the float64 input's result has dtype {scaled(x64.to(torch.float32)).dtype}")

lists = [[torch.randn(4) for _ in range(n)] for n in (2, 3, 4, 5)]
run("list lengths 2-5 as is", total, [(xs,) for xs in lists])
run("list lengths 2-5, stacked", total_stacked, [(torch.stack(xs),) for xs in lists])
