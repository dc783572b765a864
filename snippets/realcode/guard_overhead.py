# Guard overhead: a model of many small modules checks many guards on every call.
# guard_filter_fn drops guards before they are installed; skip_guard_on_all_nn_modules_unsafe
# drops those on module attributes (unsafe: a changed attribute would go unnoticed).
# Run it as: TORCH_LOGS=guards python snippets/realcode/guard_overhead.py
import time

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(16)])
x = torch.randn(2, 8)


def per_call_us(fn, calls=300):
    fn(x)  # compile outside the timing
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return sorted(times)[calls // 2] * 1e6  # the median


def count_then_skip(entries):
    keep = torch.compiler.skip_guard_on_all_nn_modules_unsafe(entries)
    print(f"guard_filter_fn: {len(entries)} guards offered, {sum(keep)} kept")
    return keep


with torch.no_grad():
    print(f"eager: {per_call_us(model):.1f} us per call")
    torch._dynamo.reset()
    print(f"compiled, every guard: {per_call_us(torch.compile(model, backend='eager')):.1f} us per call")
    if not hasattr(torch.compiler, "skip_guard_on_all_nn_modules_unsafe"):
        print("torch.compiler.skip_guard_on_all_nn_modules_unsafe does not exist in this torch")
    else:
        torch._dynamo.reset()
        filtered = torch.compile(model, backend="eager", options={"guard_filter_fn": count_then_skip})
        print(f"compiled, module guards skipped: {per_call_us(filtered):.1f} us per call")
