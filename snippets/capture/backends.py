# One function compiled with each of three backends: does the backend change the guards dynamo
# installs, or the reason it gives when it recompiles?
# Run it as: TORCH_LOGS=guards,recompiles python snippets/capture/backends.py
import torch

torch.manual_seed(0)


def scaled_sin(x, alpha):
    return torch.sin(x) * alpha


for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()  # start each backend with no compiled entries
    print(f"backend={backend}")
    compiled = torch.compile(scaled_sin, backend=backend)
    compiled(torch.randn(4), 2.0)
    compiled(torch.randn(6), 2.0)  # a new size: a guard of the first entry fails
