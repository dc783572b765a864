"""The MkDocs site: the plugin, the snippet fence's renderer, notebooks, downloads, the tlparse
reports and the published tree of one copy per release.

Imports from fieldguide.run and fieldguide.guide; never from the tools.
"""
