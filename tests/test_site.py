"""The real site, built with mkdocs --strict: record contract, pages rendered from it, downloads."""

from __future__ import annotations

import re
import zipfile

from conftest import FRESH, ROOT, output_block

RECORD_KEYS = {"torch", "python", "platform", "built_at", "snippets"}
SNIPPET_KEYS = {"path", "pages", "env", "stdout", "logs", "exit_code", "seconds", "cached", "normalized"}


def test_record_contract(site_record):
    from importlib.metadata import version

    assert RECORD_KEYS <= set(site_record)
    assert site_record["torch"] == version("torch")
    for s in site_record["snippets"]:
        assert SNIPPET_KEYS <= set(s), s["path"]
        assert s["path"].startswith("snippets/") and (ROOT / s["path"]).is_file()
        assert s["pages"] and all(not p.endswith(".md") for p in s["pages"])
        assert set(s["normalized"]) == {"stdout", "logs"}
        assert isinstance(s["cached"], bool) and s["exit_code"] == 0


def test_landing_page_names_the_measured_torch(built_site, site_record):
    """As torch.__version__ prints it, with its build (CPU or CUDA, git version), on the home page and in
    every page's banner."""
    import torch

    html = (built_site / "index.html").read_text()
    made = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU"
    assert f"This build measured torch <code>{torch.__version__}</code> ({made} build)" in html
    for page in (built_site / "index.html", built_site / "guards" / "index.html", built_site / "gym" / "index.html"):
        banner = page.read_text()
        banner = banner[banner.index('<p class="fg-release"') :][:1500]
        assert f"torch {torch.__version__}</strong>" in banner and f"({made} build, git <code" in banner
        assert torch.version.git_version[:12] in banner
    first = next(s for s in site_record["snippets"] if s["path"] == "snippets/start/first_compile.py")
    shown = output_block(html, "python snippets/start/first_compile.py")
    assert shown == first["output"].rstrip("\n").split("\n")  # the first example's real output, in its block
    assert re.fullmatch(r"graphs compiled: \d+", shown[0])


def test_build_report_lists_every_snippet(built_site, site_record):
    html = (built_site / "build" / "report" / "index.html").read_text()
    for s in site_record["snippets"]:
        assert s["path"] in html
    assert site_record["torch"] in html


def test_chapter_downloads(built_site):
    assert (built_site / "snippets" / "guards" / "anatomy.py").read_text() == (
        ROOT / "snippets/guards/anatomy.py"
    ).read_text()
    with zipfile.ZipFile(built_site / "downloads" / "guards-snippets.zip") as zf:
        assert "snippets/guards/anatomy.py" in zf.namelist()
    nb = (built_site / "notebooks" / "guards" / "index.html").read_text()
    assert "fresh_start" in nb and "scaled_sin" in nb
    for path in ("snippets/guards/anatomy.py", "snippets/guards/stale_helper.py"):  # generated from the snippets
        first_code_line = next(ln for ln in (ROOT / path).read_text().splitlines() if ln.startswith("def "))
        assert first_code_line.split("(")[0].split()[-1] in nb
    assert (built_site / "notebooks" / "dynamic" / "index.html").exists()


def test_no_external_assets(built_site):
    """The site works offline: no page loads a script, style or font from another host."""
    offenders = []
    for page in built_site.rglob("*.html"):
        for m in re.finditer(r'<(?:script|link|img)[^>]+(?:src|href)="(https?:)?//[^"]+"', page.read_text()):
            offenders.append(f"{page.relative_to(built_site)}: {m.group(0)[:120]}")
    assert not offenders, "\n".join(offenders)


def test_strict_build_fails_on_a_bad_fence_naming_page_and_problem(scratch):
    scratch.snippet("x/ok.py", "print('ok')\n")
    scratch.page("index.md", '# Hi\n\n```snippet path="x/ok.py" bogus="1"\n```\n')
    proc = scratch.build()
    assert proc.returncode != 0
    assert "docs/index.md:3: snippet fence: unknown option(s) 'bogus'" in proc.stderr + proc.stdout


def test_strict_build_fails_on_a_failing_snippet(scratch):
    scratch.snippet("x/bad.py", "import torch\nraise RuntimeError('no luck')\n")
    scratch.page("index.md", '# Hi\n\n```snippet path="x/bad.py"\n```\n')
    proc = scratch.build()
    out = proc.stderr + proc.stdout
    assert proc.returncode != 0
    assert "docs/index.md: snippets/x/bad.py exited with code 1" in out and "RuntimeError: no luck" in out


def test_scratch_build_renders_source_and_output(scratch):
    scratch.snippet("x/hello.py", "print('hello from a snippet')\n")
    scratch.page("index.md", '# Hi\n\n```snippet path="x/hello.py"\n```\n')
    proc = scratch.build(**FRESH)
    assert proc.returncode == 0, proc.stderr
    html = (scratch.root / "site" / "index.html").read_text()
    assert output_block(html, "python snippets/x/hello.py") == ["hello from a snippet"]
    assert "snippets/x/hello.py</span>" in html  # the source block's title
    assert scratch.record()["snippets"][0]["stdout"] == "hello from a snippet\n"


def test_scratch_build_show_modes_and_json_data(scratch):
    scratch.snippet("x/data.py", "import json\nprint('human line')\nprint(json.dumps({'graphs': 2}))\n")
    scratch.page(
        "index.md",
        '# Hi\n\n```snippet path="x/data.py" show="source" title="only the code"\n```\n\n'
        '```snippet path="x/data.py" show="output"\n```\n',
    )
    proc = scratch.build(**FRESH)
    assert proc.returncode == 0, proc.stderr
    html = (scratch.root / "site" / "index.html").read_text()
    assert html.count("only the code") == 1  # the source-only fence's title
    assert html.count("$ python snippets/x/data.py") == 1  # one output block: the output-only fence
    assert output_block(html, "python snippets/x/data.py") == ["human line", '{"graphs": 2}']
    assert scratch.record_obj().find("x/data.py").json() == {"graphs": 2}


def test_a_fence_shows_only_its_lines_and_runs_from_the_repository_root(scratch):
    """README, *Writing a page*: `lines` shows only those source lines (the whole file still runs),
    and a snippet runs in the repository's root, as for a reader who types `python snippets/...`.

    Checked against breakages: render.source_lines made to ignore `lines` -> the hidden first line
    is on the page; the runner made to start snippets in their own folder -> `data.txt` is not found."""
    scratch.snippet(
        "x/parts.py",
        "hidden_setup = open('data.txt').read().strip()\nshown = 'a'\nprint(shown, hidden_setup)\n# after\n",
    )
    (scratch.root / "data.txt").write_text("from-the-root\n")
    scratch.page("index.md", '# Hi\n\n```snippet path="x/parts.py" lines="2-3"\n```\n')
    proc = scratch.build(**FRESH)
    assert proc.returncode == 0, proc.stderr
    html = (scratch.root / "site" / "index.html").read_text()
    source = re.sub(r"<[^>]+>", "", html.split("snippets/x/parts.py (lines 2-3)</span>", 1)[1].split("</code>", 1)[0])
    assert "shown" in source and "print" in source and "hidden_setup = " not in source and "# after" not in source
    assert output_block(html, "python snippets/x/parts.py") == ["a from-the-root"]


def test_a_replayed_build_executes_nothing_and_shows_the_record(scratch, tmp_path_factory):
    """README, *The published site*: only the default release executes; a copy rendered from a
    record (FIELDGUIDE_REPLAY) runs nothing and shows what the record holds.

    Checked against the breakage: the plugin made to execute the jobs before replaying
    (`self._execute(jobs)` in its `settings.replay` branch) -> the snippet runs again and leaves
    its mark."""
    outside = tmp_path_factory.mktemp("outside")  # the repository is read-only to snippets
    scratch.snippet(
        "x/once.py",
        f"import os, random\nopen(os.path.join({str(outside)!r}, str(os.getpid())), 'w').close()\n"
        "print('drawn', random.SystemRandom().randrange(10**12))\n",
    )
    scratch.page("index.md", '# Hi\n\n```snippet path="x/once.py"\n```\n')
    assert scratch.build(**FRESH).returncode == 0
    shown = output_block((scratch.root / "site" / "index.html").read_text(), "python snippets/x/once.py")
    record = tmp_path_factory.mktemp("record") / "record.json"
    record.write_text((scratch.root / "site" / "record.json").read_text())
    for mark in outside.iterdir():
        mark.unlink()
    proc = scratch.build(FIELDGUIDE_REPLAY=str(record), FIELDGUIDE_NO_CACHE="1", **FRESH)
    assert proc.returncode == 0, proc.stderr
    assert list(outside.iterdir()) == [], "the replayed build ran the snippet"
    assert output_block((scratch.root / "site" / "index.html").read_text(), "python snippets/x/once.py") == shown


def test_build_messages_go_through_the_plugin_logger(scratch):
    """Not a terminal: one line per executed snippet, one summary line for the cache hits; -q silences both."""
    scratch.snippet("x/one.py", "print(1)\n")
    scratch.snippet("x/two.py", "print(2)\n")
    scratch.page("index.md", '# Hi\n\n```snippet path="x/one.py"\n```\n\n```snippet path="x/two.py"\n```\n')
    first = scratch.build(**FRESH)
    assert first.returncode == 0, first.stderr
    lines = [ln for ln in first.stderr.splitlines() if "fieldguide:" in ln]
    assert [ln.split("fieldguide: ", 1)[1].split(" ran in")[0] for ln in lines[:-1]] in (
        ["[1/2] snippets/x/one.py", "[2/2] snippets/x/two.py"],
        ["[1/2] snippets/x/two.py", "[2/2] snippets/x/one.py"],
    )
    assert all(ln.startswith("INFO") for ln in lines)
    assert re.search(r"fieldguide: executed 2, reused 0 from cache, 2 snippets in [\d.]+s$", lines[-1])
    again = scratch.build(**FRESH)
    lines = [ln for ln in again.stderr.splitlines() if "fieldguide:" in ln]
    assert len(lines) == 1 and "fieldguide: executed 0, reused 2 from cache, 2 snippets" in lines[0]
    quiet = scratch.build("-q", FIELDGUIDE_REFRESH="1", **FRESH)
    assert quiet.returncode == 0 and "fieldguide" not in quiet.stderr + quiet.stdout


def test_site_folder_is_readable_by_a_web_server(built_site):
    """The site's folders and files have a plain build's modes (0755, 0644 under umask 022).
    Broken on purpose once: make_owned() back on tempfile.mkdtemp left the site's own folder 0700."""
    from conftest import unreadable

    assert unreadable(built_site) == []
