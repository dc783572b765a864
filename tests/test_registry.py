"""Adding a lesson is one registration in mkdocs.yml plus its page and snippets (README, "Writing a page")."""

from __future__ import annotations

import re
import zipfile

from conftest import FRESH, copy_of_site_cache, mkdocs_build, output_block

from fieldguide.tools import bench

LESSON_PAGE = """# A throwaway lesson

```snippet path="scratchpad/hello.py"
```

```python exec="on"
from fieldguide.site import downloads
print(downloads.chapter_links("scratchpad"))
```
"""
REGISTRATION = "        - {slug: scratchpad, title: A throwaway lesson}\n"


def register(mkdocs_yml, line: str = REGISTRATION) -> None:
    """Append a chapter to the fieldguide plugin's chapters list, as the README tells a contributor to."""
    lines = mkdocs_yml.read_text().splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "chapters:")
    end = start + 1
    while end < len(lines) and lines[end].lstrip().startswith("- {slug:"):
        end += 1
    mkdocs_yml.write_text("".join(lines[:end] + [line] + lines[end:]))


def test_a_new_chapter_is_one_registration_plus_its_files(tmp_path, built_site, site_cache):
    site = bench.copy_site(tmp_path / "copy")
    register(site / "mkdocs.yml")
    (site / "docs" / "scratchpad.md").write_text(LESSON_PAGE)
    (site / "snippets" / "scratchpad").mkdir()
    (site / "snippets" / "scratchpad" / "hello.py").write_text(
        "def greet():\n    return 'hello from lesson seven'\n\n\nprint(greet().upper())\n"
    )
    cache = copy_of_site_cache(site_cache, tmp_path / "cache")
    proc = mkdocs_build(site, tmp_path / "out", {"FIELDGUIDE_CACHE_DIR": str(cache), **FRESH})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "executed 1, reused" in proc.stderr  # only the new snippet ran
    out = tmp_path / "out"
    page = (out / "scratchpad" / "index.html").read_text()
    assert output_block(page, "python snippets/scratchpad/hello.py") == ["HELLO FROM LESSON SEVEN"]
    # the nav: numbered after the six lessons, as a page and as a notebook (titled by its heading)
    home = (out / "index.html").read_text()
    chapter_links = re.findall(
        r'href="([^"]+)"[^>]*>\s*(?:<span[^>]*>)?\s*(?:7\.|Lesson 7:|Notebook 7:) A throwaway lesson', home
    )
    assert "scratchpad/" in chapter_links and "notebooks/scratchpad/" in chapter_links
    assert home.index('href="nextprocess/"') < home.index('href="scratchpad/"')
    # its notebook, generated from its snippets, and its downloads
    notebook = (out / "notebooks" / "scratchpad" / "index.html").read_text()
    assert "greet" in notebook and "fresh_start" in notebook
    with zipfile.ZipFile(out / "downloads" / "scratchpad-snippets.zip") as zf:
        assert zf.namelist() == ["snippets/scratchpad/hello.py"]
    assert 'href="../downloads/scratchpad-snippets.zip"' in page and 'href="../notebooks/scratchpad/"' in page


def test_a_registered_chapter_without_a_page_fails_the_build(tmp_path, built_site):
    site = bench.copy_site(tmp_path / "copy")
    register(site / "mkdocs.yml", "        - {slug: nowhere, title: Not written yet}\n")
    proc = mkdocs_build(site, tmp_path / "out", {"FIELDGUIDE_REPLAY": str(built_site / "record.json")})
    assert proc.returncode != 0
    assert "chapters listed in mkdocs.yml have no page: nowhere.md" in proc.stdout + proc.stderr
