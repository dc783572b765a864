"""The not-found page: a copy's 404.html, and the published tree's own at its root.

A server answers a missing address with a 404.html at any depth and under any sub-path (a GitHub
Pages project site lives under /<project>/; Pages serves only the 404.html at the site's root),
so the page cannot name its assets relative to its own address. `overrides/404.html` finds the
root of the guide's copy when it loads (from the address, else by asking the server for a file
the root holds) and writes a `<base>` pointing there. Its assets must be requested only after
that: a browser reads ahead in the page and requests every stylesheet and script it sees
against the page's own address (the missing one), which fail. `defer_assets` therefore turns
each of them into a script that writes the same tag once the base is set (so the read-ahead
sees none). `tree_page` makes the tree's root 404.html from the newest copy's: the same page,
told the releases of the tree, which sends the reader to the newest release's pages and to the
same address on it.
"""

from __future__ import annotations

import json
import re

TREE_MARKER = "/*fg-tree*/null"  # overrides/404.html: replaced by the tree's releases in the root's copy
SCOPE = '__md_scope=new URL(".",location)'  # material keeps preferences per site, by its root

# the tags that make a request: stylesheets, icons and preloads, scripts with a source
_LINK = re.compile(r"<link\b[^>]*\brel=\"(?:stylesheet|icon|preload|modulepreload)\"[^>]*>")
_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=\"[^\"]*\"[^>]*>\s*</script>")


class NotFoundPageError(RuntimeError):
    """The newest copy's 404.html is not this guide's not-found page (its tree marker is gone)."""


def _write(tag: str) -> str:
    text = json.dumps(tag).replace("</", "<\\/")  # (inside a <script>: no "</script>" in the string)
    return f"<script>fg404.write({text})</script>"


def defer_assets(page: str) -> str:
    """A rendered 404.html whose stylesheets and scripts are written by the page's own script
    once it has set the base (overrides/404.html defines fg404), none of them left as a tag. A
    404.html without that script (a project using the theme's own) is left as it is."""
    if "var fg404 =" not in page or TREE_MARKER not in page:
        return page
    head, sep, body = page.partition("var fg404 =")
    # the tags before the page's script (only <meta> should be there) are left as they are
    start = head.rfind("<script")
    before, script = head[:start], head[start:] + sep + body
    script = _SCRIPT.sub(lambda m: _write(m.group(0)), _LINK.sub(lambda m: _write(m.group(0)), script))
    if SCOPE in script:  # material's per-site preferences (the colour scheme): keyed by the root, not this address
        script = script.replace(SCOPE, '__md_scope=new URL(".",document.baseURI)')
    return before + script


def tree_page(copy_page: str, *, newest: str, releases: list[str], aliases: list[str]) -> str:
    """The published tree's root 404.html: the newest copy's, which then reads its assets and
    links its pages from that copy, and points a missing address at the same one there."""
    if TREE_MARKER not in copy_page:
        raise NotFoundPageError("the newest copy's 404.html has no tree marker (built by an older template?)")
    tree = json.dumps({"newest": newest, "releases": releases, "aliases": aliases}).replace("</", "<\\/")
    return copy_page.replace(TREE_MARKER, tree, 1)
