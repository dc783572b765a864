"""Build machinery for the torch.compile field guide.

The package's folders are the pipeline's stages; each imports only from the folders above it in
this list (tests/test_layers.py checks it):

    run/    running snippets: collect the fences (collect, fences, identity), execute each snippet
            isolated, cached, in parallel (execute, executors/, runner, cache, settings), record
            the results (record, logs, normalize), and the build in progress (context)
    guide/  what the guide knows and says: facts (claims, facts, chapters/, parse/), the explain
            blocks (explain), the gym, the messages index and the release matrix (releases)
    site/   the MkDocs site: the plugin, the fence's renderer (render), notebooks, downloads, the
            tlparse reports, the published tree (publish), serving
    tools/  maintainers' tools: the benchmark, the diff between records, the release matrix's
            measurement (measure), the review view
"""

ENGINE_VERSION = "4"  # part of every cache key: bump when what a cache entry holds changes
