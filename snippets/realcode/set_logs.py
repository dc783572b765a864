# Turning recompile logs on from code, as a notebook or a test would: torch._logging.set_logs.
# Two channels, one after the other: compare what recompiles and recompiles_verbose print
# for the same kind of change.
import torch


@torch.compile(backend="eager")
def normalize(x, eps):
    return x / (x.norm() + eps)


x = torch.ones(4)
torch._logging.set_logs(recompiles=True)
normalize(x, 1e-6)
normalize(x.double(), 1e-6)  # a new dtype
print("--- recompiles_verbose from here")
torch._logging.set_logs(recompiles_verbose=True)
normalize(torch.ones(2, dtype=torch.float16), 1e-5)  # a new dtype, a new shape and a new eps
torch._logging.set_logs()  # back to quiet
print("done")
