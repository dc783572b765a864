# The cases of still_recompiles.py with a change to the calling code: each prints the graphs
# its calls compiled, from an empty cache, under dynamic=True.
# Run it as: TORCH_LOGS=recompiles python snippets/dynamic/still_remedies.py
import torch
from torch._dynamo.utils import counters


class Scale(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k


class BufferScale(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.register_buffer("k", torch.tensor(float(k)))

    def forward(self, x):
        return x * self.k


def by_flag(x, relu):
    return torch.where(relu, x.relu(), x.abs())


def added(x, n):
    return x + n  # what `for _ in range(n): x = x + 1` computes, without the loop


def double(x):
    return x * 2


def count(label, run):
    torch.compiler.reset()
    start = counters["stats"]["unique_graphs"]
    try:
        run()
    except Exception as error:  # what this torch says about the change
        print(f"{label} raised {type(error).__name__}: {str(error).strip().splitlines()[0]}")
        return
    print(f"{label:<44} graphs={counters['stats']['unique_graphs'] - start}")


def calls(fn, *arguments):
    compiled = torch.compile(fn, backend="eager", dynamic=True)
    return lambda: [compiled(*args) for args in arguments]


x = torch.ones(4, 3)
count("bool as a tensor: True, False", calls(by_flag, (x, torch.tensor(True)), (x, torch.tensor(False))))
count("int without the loop: 2, 3, 4", calls(added, (x, 2), (x, 3), (x, 4)))


def attribute_calls(module, set_k, results):
    compiled = torch.compile(module, backend="eager", dynamic=True)

    def run():
        for k in (2, 3, 4):
            set_k(k)
            results.append(compiled(x)[0, 0].item())

    return run


if hasattr(torch._dynamo.config, "allow_unspec_int_on_nn_module"):
    module, results = Scale(2), []
    with torch._dynamo.config.patch(allow_unspec_int_on_nn_module=True):
        count(
            "allow_unspec_int_on_nn_module: k = 2, 3, 4",
            attribute_calls(module, lambda k: setattr(module, "k", k), results),
        )
    print(f"allow_unspec_int_on_nn_module: compiled returned {results} (eager: [2.0, 3.0, 4.0])")
else:
    print("allow_unspec_int_on_nn_module: not in this torch's torch._dynamo.config")
buffered, results = BufferScale(2), []
count("k in a buffer: 2, 3, 4", attribute_calls(buffered, lambda k: buffered.k.fill_(k), results))
print(f"k in a buffer: compiled returned {results} (eager: [2.0, 3.0, 4.0])")

transposed = torch.ones(3, 4).t()
count("transposed, .contiguous() at the call", calls(double, (torch.ones(4, 3),), (transposed.contiguous(),)))
expanded = torch.ones(1, 3).expand(4, 3)
count("expanded, .contiguous() at the call", calls(double, (torch.ones(4, 3),), (expanded.contiguous(),)))


mark_unbacked = getattr(torch._dynamo, "mark_unbacked", None) or getattr(
    torch._dynamo.decorators, "mark_unbacked", None
)


def unbacked_rows():
    compiled = torch.compile(double, backend="eager", dynamic=True)
    for rows in (4, 1):
        t = torch.ones(rows, 3)
        mark_unbacked(t, 0)
        compiled(t)


if mark_unbacked is not None:
    count("rows 4, then 1, marked unbacked", unbacked_rows)
else:
    print("mark_unbacked: not in this torch")


def wide_range():
    compiled = torch.compile(double, backend="eager")
    for rows in (4, 6, 16):
        t = torch.ones(rows, 3)
        torch._dynamo.mark_dynamic(t, 0, min=2, max=32)
        compiled(t)


count("range 2..32: rows 4, 6, 16", wide_range)
