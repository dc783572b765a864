# What the guards look like under each dynamic mode, after calls with 4 and then 5 rows.
# Run it as: TORCH_LOGS=guards python snippets/dynamic/mode_guards.py
import torch


def column_sums(x):
    return x.sum(0) * 2


for label, options, mark in [
    ("dynamic=None (default)", {}, False),
    ("dynamic=True", {"dynamic": True}, False),
    ("dynamic=False", {"dynamic": False}, False),
    ("mark_dynamic(x, 0)", {}, True),
]:
    torch.compiler.reset()
    compiled = torch.compile(column_sums, backend="eager", **options)
    print(f"== {label}")
    for rows in (4, 5):
        x = torch.ones(rows, 3)
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        compiled(x)
