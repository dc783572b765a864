# GYM·12 · A compiled AdamW step under OneCycleLR, which moves lr and beta1: the third step
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=10)
step = torch.compile(optimizer.step, backend="eager")
x, y = torch.randn(8, 4), torch.randn(8, 1)


def train_step():
    torch.nn.functional.mse_loss(model(x), y).backward()
    step()  # reads lr and betas from optimizer.param_groups
    optimizer.zero_grad()
    scheduler.step()  # new lr and beta1 for the next step


train_step()  # step 0: compiles
train_step()  # step 1: new settings
print("before:", counters["stats"]["unique_graphs"])
train_step()  # step 2: new settings again
print("after:", counters["stats"]["unique_graphs"])
