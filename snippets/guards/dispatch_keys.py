# Which dispatch keys does a tensor carry? A plain tensor, one that requires grad,
# and one created in inference mode.
import torch

plain = torch.ones(3)
needs_grad = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    inference = torch.ones(3)

dispatch_keys = getattr(torch._C, "_dispatch_keys", None)  # a private helper: not on every release
for label, tensor in [("plain", plain), ("requires_grad=True", needs_grad), ("inference_mode", inference)]:
    print(f"{label:<20} {dispatch_keys(tensor) if dispatch_keys else 'torch._C._dispatch_keys: not available on this torch'}")
