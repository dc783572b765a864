# An encoder called on sequences of varying length, one sequence per call.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/seq_lengths.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
encoder = torch.nn.Sequential(torch.nn.Embedding(100, 16), torch.nn.Linear(16, 16))
compiled = torch.compile(encoder, backend="eager")

for length in [5, 7, 9, 6, 12, 8]:
    tokens = torch.randint(0, 100, (1, length))
    compiled(tokens)
    print(f"length {length:>2}: unique_graphs={counters['stats']['unique_graphs']}")
