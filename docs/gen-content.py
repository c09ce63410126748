#!/usr/bin/env python3
"""Copies a guide from docs/ into the gi-docgen content folder.

gen-content.py IN.md OUT.md

gi-docgen takes a page's title from a "Title:" line and renders NAME.md as
NAME.html.  The guides in docs/ read well on their own (a "# Heading" first
line, links to each other as NAME.md), so the copy gets a Title: line made
from the first heading, and links to sibling guides NAME.md[#anchor] become
NAME.html[#anchor].  Anything else is copied as it is.
"""
import re
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    m = re.match(r"# (.+)\n", text)
    if m is None:
        sys.exit(f"{src}: the first line must be a '# Title' heading")
    text = re.sub(r"\]\(([a-z0-9-]+)\.md(#[^)]*)?\)", r"](\1.html\2)", text)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(f"Title: {m.group(1)}\n\n{text}")


if __name__ == "__main__":
    main()
