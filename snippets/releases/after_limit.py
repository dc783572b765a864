# After a function hits its recompile limit, what runs the next new input? Its own frame run
# eagerly (the functions it calls still compiled on their own), or nothing compiled at all?
# And do the entries compiled before the limit keep serving the inputs they match?
# Run it as: TORCH_LOGS=recompiles python snippets/releases/after_limit.py
import torch
import torch._dynamo.config as dynamo_config

graphs = []  # the operations of every graph compiled, in order
served = []  # which compiled graph ran, call by call


def recording_backend(gm, example_inputs):
    ops = "+".join(node.target.__name__ for node in gm.graph.nodes if node.op == "call_function")
    graphs.append(ops)

    def run(*args):
        served.append(ops)
        return gm.forward(*args)

    return run


limit_name = "recompile_limit" if hasattr(dynamo_config, "recompile_limit") else "cache_size_limit"
setattr(dynamo_config, limit_name, 1)
print(f"lowered config.{limit_name} to 1")


def add_one(x):
    return x + 1


@torch.compile(backend=recording_backend, dynamic=False)
def double_plus_one(x):
    return add_one(x) * 2


for label, rows in [("first call, 2 rows", 2), ("new size, over the limit", 3), ("first size again", 2)]:
    served.clear()
    double_plus_one(torch.ones(rows))
    print(f"{label:<26} graphs compiled={graphs} ran={served}")
