# A test that fails when the code under test recompiles: set_stance("fail_on_recompile")
# after a warm-up call (on a torch without set_stance, the error_on_recompile setting).
# Two versions of one inference function, run as a test runner would.
import torch


def failing_on_recompile():
    if hasattr(torch.compiler, "set_stance"):
        return torch.compiler.set_stance("fail_on_recompile")
    return torch._dynamo.config.patch(error_on_recompile=True)


def predict(model, batch):
    with torch.no_grad():
        return model(batch)


def check_no_recompile(name, mark_batch_dynamic):
    torch.compiler.reset()
    torch.manual_seed(0)
    model = torch.compile(torch.nn.Linear(8, 2), backend="eager")
    batches = [torch.randn(rows, 8) for rows in (32, 32, 7)]  # the last batch is short
    if mark_batch_dynamic:
        for batch in batches:
            torch._dynamo.mark_dynamic(batch, 0)
    predict(model, batches[0])  # warm-up: compiles
    try:
        with failing_on_recompile():
            for batch in batches[1:]:
                predict(model, batch)
        print(f"{name}: PASSED")
    except Exception as error:  # the test's failure, as pytest would report it
        message = str(error).strip().splitlines()[0].split(". filename:")[0]  # without torch's own path
        print(f"{name}: FAILED, {type(error).__name__}: {message}")


if not hasattr(torch.compiler, "set_stance"):
    print("torch.compiler.set_stance does not exist in this torch: the tests use error_on_recompile=True")
check_no_recompile("test_fixed_batch_size", mark_batch_dynamic=False)
check_no_recompile("test_batch_marked_dynamic", mark_batch_dynamic=True)
