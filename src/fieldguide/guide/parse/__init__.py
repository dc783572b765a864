"""Parsers for what torch prints: guard dumps (guard_dump.py) and recompile reasons (recompiles.py).

Both read prefix-stripped log text (see logs.py) and handle the flat format of torch 2.2-2.3 and the
tree format of torch 2.4 on.
"""
