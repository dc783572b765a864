"""Maintainers' tools: the benchmark, the diff between records, the release matrix (measure) and the
review view. The top layer: it may import from every layer below.
"""
