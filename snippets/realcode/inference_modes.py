# One compiled model, evaluated under torch.no_grad(), then torch.inference_mode(), then
# torch.autocast, then no_grad() again: the ambient modes an evaluation loop switches between.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/inference_modes.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
compiled = torch.compile(model, backend="eager")
model.eval()
x = torch.randn(4, 8)


def report(label):
    print(f"{label:<28} unique_graphs={counters['stats']['unique_graphs']}")


with torch.no_grad():
    compiled(x)
report("no_grad")
with torch.inference_mode():
    compiled(x)
report("inference_mode")
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    compiled(x)
report("no_grad + autocast(bfloat16)")
with torch.no_grad():
    compiled(x)
report("no_grad again")
with torch.inference_mode():
    compiled(x)
report("inference_mode again")
