# fullgraph=True makes a graph break an error, raised where dynamo meets it: a test that calls the
# compiled function fails on a new break, and the error says where in your code the break is.
import torch


def smooth(x):
    y = torch.sin(x)
    print("halfway")  # the graph break of logged.py
    return torch.cos(y)


try:
    torch.compile(smooth, backend="eager", fullgraph=True)(torch.ones(3))
    print("compiled with fullgraph=True, no error")
except Exception as error:
    print(f"raised {type(error).__name__}")
    for line in str(error).splitlines():
        if "fullgraph.py" in line:  # the frames of this file that the message names
            print("  names:", line.strip())
