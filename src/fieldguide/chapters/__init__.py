"""Chapter code: functions that turn recorded results into prose, tables and verdicts.

They read SnippetResult objects (from the current build, or a fixture from another torch in the
tests) and never execute anything. Each verdict is written for both outcomes, so the page stays
true whichever one this torch measured.
"""
