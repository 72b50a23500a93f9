#!/usr/bin/env python3
"""What `make check-build` compiled, against what the stack touches.

    tests/build-coverage.py --src SRC --base TAG RECORD_DIR
    tests/build-coverage.py --deps BUILD <OBJECTS >DEPS

SRC is the kernel tree with the stack applied, TAG the unpatched commit.
RECORD_DIR holds one directory per compile-only configuration, each with:
  config   the configuration's .config
  objects  the objects compiled in it, one per line (paths in the tree)
  deps     the files its objects were compiled from (headers included),
           as `build-coverage.py --deps BUILD` wrote them from the .o.cmd
           files of the objects that configuration built

Prints which configurations compiled each .c and .h file the stack
touches, and, for every CONFIG_ symbol that the stack tests in an added
#if/#ifdef/#ifndef/#elif line or IS_ENABLED(), whether the file it is in
was compiled with the symbol on and with it off. Exits 1 if a touched file
was never compiled or a symbol was not compiled both ways.
"""

import argparse
import os
import re
import subprocess
import sys

COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b(.*)")
SYM = re.compile(r"\bCONFIG_\w+")
IS_ENABLED = re.compile(r"\b(?:IS_ENABLED|IS_BUILTIN|IS_MODULE|IS_REACHABLE)\((CONFIG_\w+)\)")


def git(src, *args):
    return subprocess.run(["git", "-C", src, *args], check=True, capture_output=True,
                          text=True).stdout


def touched_files(src, base):
    out = git(src, "diff", "--name-only", "--diff-filter=AM", f"{base}..HEAD")
    return [f for f in out.split() if f.endswith((".c", ".h"))]


def added_conditions(src, base, path):
    """CONFIG_ symbols of the #if-family lines and IS_ENABLED() the stack
    added to path."""
    syms = set()
    diff = git(src, "diff", "-U0", f"{base}..HEAD", "--", path)
    for line in diff.splitlines():
        if not line.startswith("+") or line.startswith("+++"):
            continue
        text = line[1:]
        m = COND.match(text)
        if m:
            syms.update(SYM.findall(m.group(2)))
        syms.update(IS_ENABLED.findall(text))
    return syms


def read_config(path):
    values = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                values[m.group(1)] = m.group(2)
    return values


def object_deps(build, obj):
    """Files an object was compiled from, per its Kbuild .cmd file."""
    d, b = os.path.split(obj)
    cmd = os.path.join(build, d, f".{b}.cmd")
    deps = set()
    if not os.path.exists(cmd):
        return deps
    with open(cmd, errors="replace") as f:
        for word in f.read().replace("\\\n", " ").split():
            word = word.strip()
            if word.endswith((".c", ".h")) and not word.startswith("$("):
                deps.add(word)
    return deps


def write_deps(build):
    """Print the source files (absolute) of the objects named on stdin: a
    build directory holds the .o.cmd files of earlier configurations' objects
    too, so only those this configuration built count."""
    deps = set()
    for obj in sys.stdin.read().split():
        for dep in object_deps(build, obj):
            deps.add(os.path.realpath(dep if os.path.isabs(dep) else os.path.join(build, dep)))
    print("\n".join(sorted(deps)))
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--deps":
        return write_deps(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("record")
    a = ap.parse_args()
    src = os.path.realpath(a.src)

    configs = {}
    for name in sorted(os.listdir(a.record)):
        d = os.path.join(a.record, name)
        if not os.path.isfile(os.path.join(d, "objects")):
            continue
        objs = [o for o in open(os.path.join(d, "objects")).read().split() if o]
        compiled = set(o[:-2] + ".c" for o in objs)
        # a header counts when an object of the configuration included it
        for p in open(os.path.join(d, "deps")).read().split():
            if p.startswith(src + "/") and p.endswith(".h"):
                compiled.add(p[len(src) + 1:])
        configs[name] = (read_config(os.path.join(d, "config")), compiled)
    if not configs:
        sys.exit(f"build-coverage: nothing recorded in {a.record}; run tests/check-build first")

    bad = 0
    print("files the stack touches, and the configurations that compiled them:")
    for f in touched_files(src, a.base):
        where = [n for n, (_, comp) in configs.items() if f in comp]
        mark = "ok  " if where else "NONE"
        bad += not where
        print(f"  {mark} {f}: {' '.join(where) if where else 'never compiled'}")

    print("CONFIG_ symbols the stack tests (#if/#ifdef/IS_ENABLED), compiled on | off:")
    for f in touched_files(src, a.base):
        for sym in sorted(added_conditions(src, a.base, f)):
            on = [n for n, (cfg, comp) in configs.items() if f in comp and cfg.get(sym, "n") in ("y", "m")]
            off = [n for n, (cfg, comp) in configs.items() if f in comp and cfg.get(sym, "n") not in ("y", "m")]
            ok = bool(on) and bool(off)
            bad += not ok
            print(f"  {'ok  ' if ok else 'ONE-WAY'} {f} {sym}: on in {' '.join(on) or 'none'}"
                  f" | off in {' '.join(off) or 'none'}")
    print(f"build-coverage: {'ok' if not bad else f'{bad} gap(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
