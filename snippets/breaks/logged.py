# TORCH_LOGS=graph_breaks: torch reports each graph break as it compiles, with where it happened.
# Run it as: TORCH_LOGS=graph_breaks python snippets/breaks/logged.py
import torch


@torch.compile(backend="eager")
def smooth(x):
    y = torch.sin(x)
    print("halfway")  # a graph break
    return torch.cos(y)


smooth(torch.ones(3))
