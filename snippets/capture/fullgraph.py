# fullgraph=True: one graph or an error, never a silent graph break.
import torch


def smooth(x):
    y = torch.sin(x)
    print("halfway")  # a graph break
    return torch.cos(y)


def smooth_quietly(x):
    return torch.cos(torch.sin(x))


x = torch.ones(3)
print("smooth_quietly:", torch.compile(smooth_quietly, backend="eager", fullgraph=True)(x))
try:
    torch.compile(smooth, backend="eager", fullgraph=True)(x)
    print("smooth: compiled as one graph")
except Exception as error:  # what fullgraph=True raises at the break
    print(f"smooth: raised {type(error).__name__}")
    print("first line:", str(error).strip().splitlines()[0])
