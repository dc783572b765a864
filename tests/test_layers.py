"""The package's folders are the pipeline's stages, and each imports only from those below it.

run (running snippets) < guide (what the guide knows and says) < site (the MkDocs site) < tools
(maintainers' tools). Every import counts: at the top of a module, inside a function, or under
`if TYPE_CHECKING:`, since an import hidden in a function is still a dependency.

Checked against breakages: `from ..site.render import RenderState` put back into run/context.py
(as it was before the state moved there) fails the layer test and the cycle test; a function-level
`from .. import releases` in guide/chapters/common.py (the old `across`) fails the cycle test, through
facts.py, which imports every chapter module by walking the package (counted as imports here).
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "fieldguide"
LAYERS = ("run", "guide", "site", "tools")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every fieldguide module `name` imports, wherever the import statement stands."""
    found = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "fieldguide"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "fieldguide":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    if "pkgutil.iter_modules" in path.read_text(encoding="utf-8"):  # facts.py imports every chapter module
        found |= {
            k
            for k in known
            for pkg in list(found)
            if k.startswith(pkg + ".") and (PKG.parent / pkg.replace(".", "/")).is_dir()
        }
    return found - {name}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else -1  # the root: below all


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, set(mods)) for name, path in mods.items()}


def test_every_module_sits_in_a_stage_folder():
    loose = [m for m in _modules() if _layer(m) == -1 and m != "fieldguide"]
    assert loose == [], f"modules outside run/, guide/, site/ and tools/: {loose}"


def test_each_stage_imports_only_from_the_stages_below_it():
    wrong = [
        f"{m} ({LAYERS[_layer(m)]}) imports {t} ({LAYERS[_layer(t)]})"
        for m, targets in _graph().items()
        for t in sorted(targets)
        if _layer(t) > _layer(m)
    ]
    assert wrong == [], "\n".join(wrong)


def test_no_import_cycle_anywhere_in_the_package():
    """Tarjan's strongly connected components over every import (function-level ones included)."""
    graph = {m: {t for t in ts if t in _modules()} for m, ts in _graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            # a package's __init__ importing its own submodules is not a cycle of dependencies
            if len(component) > 1 and not all(c.startswith(min(component, key=len)) for c in component):
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == [], f"import cycles: {cycles}"
