"""Build machinery for the torch.compile field guide.

The build is a pipeline, one module per stage:

    collect   -> find every snippet fence the pages use          (collect.py, fences.py)
    execute   -> run each snippet isolated, cached, in parallel  (execute.py, executors/, runner.py, cache.py)
    record    -> turn raw runs into results and record.json      (record.py, logs.py, normalize.py)
    render    -> show results in pages; never executes          (render.py, chapters/, claims.py, gym.py, report.py)
    diff      -> compare the records of two builds              (diff.py)
"""

ENGINE_VERSION = "4"  # part of every cache key: bump when what a cache entry holds changes
