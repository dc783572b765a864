"""tests/PROMISES.md, the list of what the README and the contributor page promise beside the tests
that fail when it breaks, cannot rot: every row names tests, and every test it names exists."""

from __future__ import annotations

import ast
import re

from conftest import ROOT

LIST = ROOT / "tests" / "PROMISES.md"
NODE = re.compile(r"`(test_\w+\.py)::(\w+)`")


def rows() -> list[tuple[str, list[tuple[str, str]]]]:
    """(promise, [(test file, test name)]) for every row of every table in the list."""
    out = []
    for line in LIST.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) < 2 or cells[0] in ("promise", "") or set(cells[0]) <= {"-"}:
            continue
        out.append((cells[0], NODE.findall(cells[-1])))
    return out


def defined(file: str) -> set[str]:
    tree = ast.parse((ROOT / "tests" / file).read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_every_promise_names_tests_that_exist():
    """Checked against breakages: a row's test renamed (`test_the_cache_command_gone`) and a row
    naming no test, each added to the list -> this test fails naming the row."""
    listed = rows()
    assert len(listed) > 50, "the list of promises lost its rows"
    missing = []
    for promise, tests in listed:
        assert tests, f"tests/PROMISES.md: no test for {promise!r}"
        missing += [f"{f}::{name} ({promise})" for f, name in tests if name not in defined(f)]
    assert not missing, "tests/PROMISES.md names tests that do not exist:\n" + "\n".join(missing)


def test_the_contributor_page_points_to_the_list():
    assert "tests/PROMISES.md" in (ROOT / "docs" / "build" / "contributing.md").read_text()
