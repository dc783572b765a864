# The weight-decay schedule with the decay taken out of param_groups: the compiled step shrinks the
# weights by a tensor, then SGD (weight_decay=0) steps. For plain SGD that is the same update, which
# a copy of the model, stepped eagerly with the float schedule, checks.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/optim_weight_decay_fixed.py
import copy

import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
reference = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=0.0)
reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.01, weight_decay=0.0)
weight_decay = torch.tensor(0.0)


@torch.compile(backend="eager")
def step():
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 - 0.01 * weight_decay)  # lr times the weight decay, as SGD applies it
    optimizer.step()


x, y = torch.randn(16, 8), torch.randn(16, 1)
for i in range(8):
    weight_decay.fill_(1e-4 * (i + 1))  # new contents, the same tensor
    reference_optimizer.param_groups[0]["weight_decay"] = 1e-4 * (i + 1)  # the float schedule
    for m in (model, reference):
        torch.nn.functional.mse_loss(m(x), y).backward()
    step()
    reference_optimizer.step()
    optimizer.zero_grad()
    reference_optimizer.zero_grad()
    same = all(torch.allclose(a, b) for a, b in zip(model.parameters(), reference.parameters()))
    print(f"step {i}: weight_decay={weight_decay.item():.4f} unique_graphs={counters['stats']['unique_graphs']} same as the float schedule: {same}")
