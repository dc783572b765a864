"""Chapter code: one module per lesson, holding its facts (`@fact`) and its tables.

They read SnippetResult objects (from the current build, or a committed release's record) and
never execute anything. They return no sentences: a page's explain blocks hold the prose, one text
per outcome of the fact it explains (guide/explain.py).
"""
