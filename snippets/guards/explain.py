# The same function as anatomy.py, asked for its guards as objects instead of text.
import torch


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


def builder_name(guard):
    fn = guard.create_fn
    return getattr(fn, "func", fn).__name__  # a functools.partial on some releases


torch.manual_seed(0)
report = torch._dynamo.explain(scaled_sin)(torch.randn(4), 2.0)
# Sorted: the order of out_guards can change from one process to the next.
for guard in sorted(report.out_guards, key=lambda g: (builder_name(g), g.name or "")):
    print(f"{builder_name(guard):<30} {guard.name or '-'}")
print(f"{len(report.out_guards)} guard objects")
