# compile_ids.py without its graph break: the print moved out of the compiled function.
# Run it as: TORCH_LOGS=recompiles python snippets/breaks/compile_ids_fixed.py
import torch


def show_id(gm, example_inputs):
    ops = [getattr(n.target, "__name__", str(n.target)) for n in gm.graph.nodes if n.op == "call_function"]
    print(f"  compiled graph [{torch._guards.CompileContext.current_compile_id()}]: {ops}")
    return gm.forward


@torch.compile(backend=show_id)
def smooth(x):
    return torch.cos(torch.sin(x))


print("call 1: float32")
smooth(torch.ones(3))
print("call 2: float32 again")
smooth(torch.ones(3))
print("call 3: float64")
smooth(torch.ones(3, dtype=torch.float64))
