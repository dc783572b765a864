"""One settings object: the README's table matches the code, variables override options, and
nothing else in the engine keeps state that other modules read."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import ROOT

from fieldguide.run.identity import SnippetId, code_fence
from fieldguide.run.settings import OPTIONS, FieldGuideConfig, Settings, SettingsError, default_workers

SRC = ROOT / "src" / "fieldguide"


def readme_settings() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    table = text.split("<!-- settings:start -->")[1].split("<!-- settings:end -->")[0]
    rows = [r.strip().strip("|").split("|") for r in table.strip().splitlines()[2:]]
    return [[c.strip().strip("`") for c in row] for row in rows]


def test_the_readme_settings_table_matches_the_code():
    rows = readme_settings()
    assert [(r[0], r[1], r[2]) for r in rows] == [(o.name, o.env, o.default) for o in OPTIONS]
    config = FieldGuideConfig()
    config.load_dict({})
    config.validate()
    assert {o.name for o in OPTIONS} == set(config)  # every mkdocs.yml option is in the table
    for option in OPTIONS:
        default = config[option.name]
        shown = {True: "true", False: "false"}.get(default, default) if isinstance(default, bool) else default
        assert str(shown if shown != [] else "[]") == option.default, option.name


def test_no_variable_is_read_outside_the_settings():
    readers = []
    for path in sorted(SRC.rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if (
                re.search(r"FIELDGUIDE_[A-Z_]+", line)
                and re.search(r"environ|getenv", line)
                and path.name != "settings.py"
            ):
                readers.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not readers, "\n".join(readers)


def test_no_module_level_state_is_rebound_except_the_build_context():
    """`global` statements are how a module-level value gets set from outside; only context.activate may."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "runner.py":  # the snippet process's entry point: its state lives in that process only
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Global):
                found.append((path.name, tuple(node.names)))
    assert found == [("context.py", ("_active",))]


_MUTATORS = {"clear", "update", "append", "extend", "setdefault", "pop", "add", "remove", "discard", "insert"}


def test_no_module_sets_or_mutates_another_modules_state():
    """Build state travels in objects (Settings, RenderState, the active BuildContext), never as
    another module's attributes: `render.X = ...` or `render.X.clear()` from outside is refused."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("fieldguide")}
            elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("fieldguide")):
                modules |= {a.asname or a.name for a in node.names if a.name.islower()}
        for node in ast.walk(tree):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AugAssign)
                else []
            )
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in modules:
                    found.append(f"{path.name}:{node.lineno}: sets {t.value.id}.{t.attr}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATORS
                and isinstance(node.func.value, ast.Attribute)
                and isinstance(node.func.value.value, ast.Name)
                and node.func.value.value.id in modules
                and node.func.value.attr.isupper()
            ):
                found.append(f"{path.name}:{node.lineno}: mutates {node.func.value.value.id}.{node.func.value.attr}")
    assert not found, "\n".join(found)


def test_variables_override_options_and_bad_values_are_named(tmp_path):
    options = {"executor": "fresh", "workers": 3, "cache_dir": "c", "refresh": False}
    s = Settings.resolve(options, tmp_path, {})
    assert (s.executor, s.workers, s.cache_dir, s.refresh, s.cache) == ("fresh", 3, tmp_path / "c", False, True)
    env = {
        "FIELDGUIDE_EXECUTOR": "warm",
        "FIELDGUIDE_WORKERS": "0",
        "FIELDGUIDE_REFRESH": "1",
        "FIELDGUIDE_NO_CACHE": "1",
    }
    s = Settings.resolve(options, tmp_path, env)
    assert (s.executor, s.workers, s.refresh, s.cache) == ("warm", default_workers(), True, False)
    with pytest.raises(SettingsError, match="FIELDGUIDE_WORKERS='many': expected a whole number"):
        Settings.resolve({}, tmp_path, {"FIELDGUIDE_WORKERS": "many"})
    with pytest.raises(SettingsError, match="FIELDGUIDE_EXECUTOR='hot'"):
        Settings.resolve({}, tmp_path, {"FIELDGUIDE_EXECUTOR": "hot"})
    with pytest.raises(SettingsError, match="FIELDGUIDE_REFRESH='maybe'"):
        Settings.resolve({}, tmp_path, {"FIELDGUIDE_REFRESH": "maybe"})


def test_chapters_are_numbered_in_registration_order(tmp_path):
    s = Settings.resolve({"chapters": [{"slug": "a", "title": "A"}, {"slug": "b", "title": "B"}]}, tmp_path, {})
    assert [(c.number, c.page, c.notebook, c.snippets_zip) for c in s.chapters] == [
        (1, "a.md", "notebooks/a.py", "downloads/a-snippets.zip"),
        (2, "b.md", "notebooks/b.py", "downloads/b-snippets.zip"),
    ]
    with pytest.raises(LookupError, match="no chapter 'c'"):
        s.chapter("c")


def test_snippet_identity():
    a = SnippetId.of("snippets/guards/x.py", {"TORCH_LOGS": "guards,recompiles", "A": "two words"})
    assert a == SnippetId.of("guards/x.py", {"A": "two words", "TORCH_LOGS": "guards,recompiles"})
    assert a.display == "snippets/guards/x.py" and a.key == ("guards/x.py", a.env)
    assert a.command_line() == "A='two words' TORCH_LOGS=guards,recompiles python snippets/guards/x.py"
    assert SnippetId.of("g/y.py").command_line() == "python snippets/g/y.py"


def test_code_fence_is_longer_than_any_backtick_run_inside():
    assert code_fence("print(1)\n", "python") == "```python\nprint(1)\n```"
    body = "a\n````\nb ```` c\n"
    fence = code_fence(body, "text", "t")
    assert fence.startswith('`````text title="t"\n') and fence.endswith("\n`````")
    assert code_fence("x", minimum=4) == "````\nx\n````"
