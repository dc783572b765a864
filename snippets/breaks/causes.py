# Four common graph breaks, one per function, counted by torch._dynamo.explain.
import zlib

import torch


def branch_on_values(x):
    y = x * 2
    if y.sum() > 0:  # Python must know the value to pick a branch
        return y + 1
    return y - 1


def prints(x):
    y = x * 2
    print("y computed")  # a side effect dynamo does not put in a graph
    return y + 1


def calls_c_code(x):
    y = x * 2
    seed = zlib.crc32(b"field guide")  # a C function dynamo cannot look inside
    return y + seed % 7


def reads_item(x):
    y = x * 2
    peak = y.max().item()  # a Python number out of a tensor
    return y / peak


torch.manual_seed(0)
x = torch.randn(4)
for fn in (branch_on_values, prints, calls_c_code, reads_item):
    report = torch._dynamo.explain(fn)(x)
    reasons = [str(r.reason).strip().splitlines()[0] for r in report.break_reasons]
    print(f"{fn.__name__}: graphs={report.graph_count} breaks={report.graph_break_count}")
    for reason in reasons:
        print(f"  reason: {reason}")
