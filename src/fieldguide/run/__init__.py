"""Running snippets: collect the fences, execute each snippet isolated and cached, record the results.

The lowest layer: it imports nothing from the guide, the site or the tools. `context` is the build in
progress that the layers above read.
"""
