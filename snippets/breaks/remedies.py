# The four breaks of causes.py, each rewritten so that dynamo can keep the function in one graph,
# counted by torch._dynamo.explain. The last one keeps .item() and asks dynamo to capture it.
import zlib

import torch


def branch_on_values(x):
    y = x * 2
    return torch.where(y.sum() > 0, y + 1, y - 1)  # both sides computed, one chosen in the graph


def prints(x):
    return x * 2 + 1  # the print moved to the caller, outside the compiled function


SEED = zlib.crc32(b"field guide")  # the C function runs once, before anything is compiled


def calls_c_code(x):
    y = x * 2
    return y + SEED % 7


def reads_item(x):
    y = x * 2
    return y / y.max()  # the peak stays a tensor: no Python number


def reads_item_captured(x):
    y = x * 2
    peak = y.max().item()  # as in causes.py, with capture_scalar_outputs set below
    return y / peak


torch.manual_seed(0)
x = torch.randn(4)
for fn in (branch_on_values, prints, calls_c_code, reads_item, reads_item_captured):
    if fn is reads_item_captured:
        torch._dynamo.config.capture_scalar_outputs = True  # for the rest of this process
    report = torch._dynamo.explain(fn)(x)
    print(f"{fn.__name__}: graphs={report.graph_count} breaks={report.graph_break_count}")
    for reason in report.break_reasons:
        print(f"  reason: {str(reason.reason).strip().splitlines()[0]}")
