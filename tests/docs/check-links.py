#!/usr/bin/env python3
"""check-links.py SRCDIR

- every guide in docs/ is linked from docs/overview.md (the newcomer's map);
- every guide is listed in docs/meson.build, so it is a page of the API reference;
- every relative link in README.md and docs/*.md points at a file that exists.
"""
import glob
import os
import re
import sys

src = sys.argv[1]
docs = os.path.join(src, "docs")
guides = sorted(os.path.basename(p) for p in glob.glob(os.path.join(docs, "*.md")))
failures = []

with open(os.path.join(docs, "overview.md"), encoding="utf-8") as f:
    overview = f.read()
linked = set(re.findall(r"\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)", overview))
for g in guides:
    if g != "overview.md" and g not in linked:
        failures.append(f"docs/overview.md does not link {g}")

with open(os.path.join(docs, "meson.build"), encoding="utf-8") as f:
    listed = set(re.findall(r"'([a-z0-9-]+\.md)'", f.read()))
for g in guides:
    if g not in listed:
        failures.append(f"docs/meson.build's guides (the API reference's pages) lack {g}")

for path in [os.path.join(src, "README.md")] + [os.path.join(docs, g) for g in guides]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)       # not inside code blocks
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):                     # http:, https:, mailto:
            continue
        if not os.path.exists(os.path.join(os.path.dirname(path), target)):
            failures.append(f"{os.path.relpath(path, src)}: link to {target}, which does not exist")

print(f"# {len(guides)} guides; {len(linked)} linked from overview.md")
for line in failures:
    print("not ok - " + line)
sys.exit(1 if failures else 0)
