# torch._dynamo.explain: how many graphs, how many breaks, and why, without running a backend.
import torch


def smooth(x):
    y = torch.sin(x)
    print("halfway")  # a graph break
    return torch.cos(y)


torch.manual_seed(0)
report = torch._dynamo.explain(smooth)(torch.randn(3))
print("graph_count:", report.graph_count)
print("graph_break_count:", report.graph_break_count)
for reason in report.break_reasons:
    print("break reason:", str(reason.reason).strip().splitlines()[0])
