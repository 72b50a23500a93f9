#!/usr/bin/env python3
"""Write linux.patch-stack as debian/patches for a Debian kernel source package.

  boot/debian-patches.py export OUT_DIR [STACK_DIR]
  boot/debian-patches.py check OUT_DIR

'export' writes each patch of the series with DEP-3 headers (Description,
Author, Origin, Forwarded, Last-Update) in place of the git mail headers,
the diff unchanged, and a quilt 'series' file listing them in order; the
directory is then used with QUILT_PATCHES=debian/patches quilt push -a.
'check' verifies that every patch there has the five headers. make
export-debian runs 'export'; make check-patches applies the output with
quilt to the pristine files and compares the result with git am's.
"""

import email.utils
import os
import re
import sys

FIELDS = ("Description", "Author", "Origin", "Forwarded", "Last-Update")
LORE = re.compile(r"https://lore\.kernel\.org/\S+")


def series(stack):
    with open(os.path.join(stack, "series")) as f:
        return [l.split()[0] for l in f if l.strip() and not l.lstrip().startswith("#")]


def parse(path):
    """(author, date, subject, body lines, diff text) of a git format-patch file."""
    with open(path, errors="surrogateescape") as f:
        lines = f.read().split("\n")
    headers, i = {}, 1  # line 0 is the "From <sha> <date>" mbox line
    key = None
    while i < len(lines) and lines[i] != "":
        line = lines[i]
        if line[:1] in (" ", "\t") and key:
            headers[key] += " " + line.strip()
        else:
            key, _, value = line.partition(":")
            headers[key] = value.strip()
        i += 1
    body_end = i + 1
    while body_end < len(lines) and lines[body_end] != "---" and not lines[body_end].startswith("diff --git "):
        body_end += 1
    body = lines[i + 1:body_end]
    while body and not body[-1].strip():
        body.pop()
    diff_start = body_end
    while diff_start < len(lines) and not lines[diff_start].startswith("diff --git "):
        diff_start += 1
    if diff_start == len(lines):
        sys.exit(f"debian-patches: {path}: no diff in it")
    subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", headers.get("Subject", ""))
    return headers.get("From", ""), headers.get("Date", ""), subject, body, "\n".join(lines[diff_start:])


def dep3(path):
    author, date, subject, body, diff = parse(path)
    if not (author and date and subject):
        sys.exit(f"debian-patches: {path}: no From, Date or Subject header; run: make check-patches")
    desc = [f"Description: {subject}"]
    for line in body:
        # a DEP-3 continuation line: one space, and " ." for an empty line
        desc.append(" " + line if line.strip() else " .")
    links = LORE.findall("\n".join(body))
    origin = f"other, {links[0].rstrip('.,)')}" if links else "vendor"
    last = email.utils.parsedate_to_datetime(date).strftime("%Y-%m-%d")
    out = desc + [f"Author: {author}",
                  f"Origin: {origin}",
                  "Forwarded: no",
                  f"Last-Update: {last}",
                  "---",
                  diff]
    return "\n".join(out)


def export(out, stack):
    names = series(stack)
    if not names:
        sys.exit(f"debian-patches: no patch in {stack}/series")
    os.makedirs(out, exist_ok=True)
    for n in names:
        with open(os.path.join(out, n), "w", errors="surrogateescape") as f:
            f.write(dep3(os.path.join(stack, n)))
    with open(os.path.join(out, "series"), "w") as f:
        f.write("".join(n + "\n" for n in names))
    print(f"boot/debian-patches.py: wrote {len(names)} patches and series to {out}"
          f" (apply with: QUILT_PATCHES={out} quilt push -a)")


def check(out):
    bad = 0
    for n in series(out):
        with open(os.path.join(out, n), errors="surrogateescape") as f:
            head = f.read().split("\n---\n", 1)[0]
        have = {l.split(":", 1)[0] for l in head.split("\n") if l and not l.startswith(" ")}
        missing = [k for k in FIELDS if k not in have]
        if missing:
            print(f"{n}: no {', '.join(missing)} header")
            bad = 1
    return bad


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) in (3, 4) and argv[1] == "export":
        export(argv[2], argv[3] if len(argv) == 4 else os.path.join(top, "linux.patch-stack"))
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    sys.exit("usage: boot/debian-patches.py export OUT_DIR [STACK_DIR] | check OUT_DIR")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
