# The same sequences, each padded up to the next multiple of 8 tokens before the call.
# Run it as: TORCH_LOGS=recompiles python snippets/realcode/seq_buckets.py
import torch
from torch._dynamo.utils import counters

torch.manual_seed(0)
encoder = torch.nn.Sequential(torch.nn.Embedding(100, 16), torch.nn.Linear(16, 16))
compiled = torch.compile(encoder, backend="eager")
PAD = 0
real = computed = 0  # tokens given, and token positions the encoder ran over

for length in [5, 7, 9, 6, 12, 8]:
    tokens = torch.randint(1, 100, (1, length))
    bucket = -(-length // 8) * 8  # round up to a multiple of 8
    padded = torch.nn.functional.pad(tokens, (0, bucket - length), value=PAD)
    out = compiled(padded)
    real, computed = real + length, computed + out.shape[1]
    print(f"length {length:>2} -> {bucket:>2}: unique_graphs={counters['stats']['unique_graphs']}")
print(f"token positions computed: {computed} for {real} real tokens")
