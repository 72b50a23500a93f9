#!/usr/bin/env python3
"""Judge one boot of the test guest from its console log and result files.

Reads:
  - the console log: kernel reports (panic, oops, BUG, WARN, lockdep, KASAN,
    UBSAN, list corruption, hung tasks, soft and hard lockups, RCU stalls)
    are failures; the KUnit results the kernel printed at boot are parsed
    as KTAP;
  - one KTAP file per in-guest test group (results/<group>.tap); a group
    that was asked for and left no file, no plan or fewer results than its
    plan is a failure;
  - the known-failures list: a failing test named there counts as a skip
    with the reason given, never as a pass. With --baseline (the unpatched
    kernel), every entry of the list must have failed in this boot: one
    that passed or did not run here is not a known failure of 6.12.

Prints one line per stage and group and ends with "N passed, N failed,
N skipped". Exits 1 if anything failed. With --json, also writes every
stage and test case with its result, time and failure lines there (see
tests/results.py, which turns it into JUnit XML).
"""

import argparse
import fnmatch
import json
import os
import re
import sys

# Kernel reports that fail a boot whatever the tests said.
KERNEL_REPORTS = [
    # the specific reports first: a line gets the first label that matches,
    # and many reports start with "BUG: " or "WARNING: "
    (re.compile(r"Kernel panic - not syncing"), "kernel panic"),
    (re.compile(r"BUG: KASAN: "), "KASAN report"),
    (re.compile(r"BUG: soft lockup"), "soft lockup"),
    (re.compile(r"Watchdog detected hard LOCKUP"), "hard lockup"),
    (re.compile(r"BUG: sleeping function called from invalid context"), "sleep in atomic context"),
    (re.compile(r"INFO: task .* blocked for more than"), "hung task"),
    (re.compile(r"rcu: INFO: .* detected stalls"), "RCU stall"),
    (re.compile(r"UBSAN: "), "UBSAN report"),
    (re.compile(r"WARNING: suspicious RCU usage"), "RCU usage report"),
    (re.compile(r"WARNING: (possible|inconsistent)"), "lockdep report"),
    (re.compile(r"possible circular locking dependency"), "lockdep report"),
    (re.compile(r"\blist_(add|del) corruption"), "list corruption"),
    (re.compile(r"\bBUG: "), "kernel BUG"),
    (re.compile(r"kernel BUG at "), "kernel BUG"),
    (re.compile(r"\bOops: "), "oops"),
    (re.compile(r"general protection fault"), "general protection fault"),
    (re.compile(r"WARNING: .* at "), "kernel WARN"),
]

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
# What the guest's runners print before a case's or a selftest's result.
TOOK = re.compile(r"^(?P<name>\S+) took (?P<secs>\d+) s$")
KTAP_LINE = re.compile(
    r"^(?P<indent>\s*)(?:(?P<version>(?:K)?TAP version \d+)"
    r"|(?P<plan>1\.\.(?P<count>\d+))"
    r"|(?P<result>(?P<notok>not )?ok (?P<num>\d+)(?: -)?\s*(?P<name>[^#]*?)\s*(?:#\s*(?P<directive>.*))?)"
    r"|# Subtest: (?P<subtest>.*)"
    r"|# (?P<diag>.*))\s*$"
)

# A result line glued to the end of the previous output (see glued_result).
GLUED = re.compile(r"(?:not )?ok (\d+)\b")


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.notes = []
        self.seen = {}  # test path -> "passed" or "failed", for known ones
        self.cases = []  # one dict per test case, for --json

    def case(self, name, result, reason="", log=None, time=None):
        self.cases.append({"name": name, "result": result, "reason": reason,
                           "time_s": time, "log": log or []})

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.notes += other.notes
        self.seen.update(other.seen)
        self.cases += other.cases

    def fail(self, why, name=None):
        """A failure; unless a test case records it (name=None), it is a
        case of its own, named by the first line of why."""
        self.failed += 1
        self.notes.append("FAIL " + why)
        if name is None:
            lines = why.split("\n")
            self.case(lines[0], "fail", log=[l.strip() for l in lines[1:]])

    def summary(self):
        s = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            s += f", {self.skipped} skipped"
        return s


class Known(dict):
    """The known failures, with the flaky ones beside them."""

    def __init__(self, known, flaky):
        super().__init__(known)
        self.flaky = flaky


class Node:
    """A KTAP test: a leaf, or a parent whose results are its subtests."""

    def __init__(self, name):
        self.name = name
        self.plan = None
        self.children = []
        self.ok = None
        self.directive = ""
        self.diag = []  # the comment lines printed just before the result
        self.time = None  # seconds, when the runner printed "NAME took N s"
        self.num = None  # the number on its result line


def parse_ktap(lines, name):
    """Parse KTAP lines (already stripped of log prefixes) into a tree.

    A block indented deeper than its level holds the subtests of the result
    line that follows it at that level, as KUnit and kselftest print them.
    """
    items = []
    last = {}  # indentation -> number of the last result line there
    lines = [raw.rstrip("\r\n") for raw in lines]
    for k, line in enumerate(lines):
        m = KTAP_LINE.match(line)
        if not m:
            continue
        indent = len(m.group("indent").expandtabs(4))
        if m.group("diag") is not None:
            want = last.get(indent, 0) + 1
            cut = glued_result(line, want)
            # a glued result stands in for a result line that is missing:
            # where the next one at this level has that number, "ok N" in
            # the comment is text ("# x took 3 s" before "ok 3 x")
            if cut and next_result(lines, k, indent) != want:
                items.append((indent, KTAP_LINE.match(line[:cut])))
                m = KTAP_LINE.match(m.group("indent") + line[cut:])
        if m.group("result"):
            last = {i: n for i, n in last.items() if i < indent}
            last[indent] = int(m.group("num"))
        items.append((indent, m))
    root = Node(name)
    pos = parse_block(items, 0, items[0][0] if items else 0, root)
    if pos < len(items):
        root.notes = ["results after the end of the top-level block were ignored"]
    return root


def next_result(lines, k, indent):
    """The number of the first result line after lines[k] at indentation
    indent, before the block ends (a shallower line); None if none."""
    for line in lines[k + 1:]:
        m = KTAP_LINE.match(line)
        if not m:
            continue
        i = len(m.group("indent").expandtabs(4))
        if i < indent:
            return None
        if i == indent and m.group("result"):
            return int(m.group("num"))
    return None


def glued_result(line, want):
    """Where the result line numbered want starts inside the comment line,
    if a test printed a message without a newline and its runner's result
    went on the same line ("# ... is enablednot ok 4 name"); else None."""
    for m in GLUED.finditer(line):
        if m.start() > 0 and not line[m.start() - 1].isspace() and int(m.group(1)) == want:
            return m.start()
    return None


def parse_block(items, pos, level, node):
    """Fill node from items[pos:] at indentation level; return the next pos."""
    pending = None
    diag = []
    timing = None
    while pos < len(items):
        indent, m = items[pos]
        if m.group("diag") is not None and indent >= level:
            took = TOOK.match(m.group("diag").strip())
            if took:
                timing = int(took.group("secs"))
            else:
                diag = (diag + [m.group("diag")])[-5:]
            pos += 1
            continue
        if indent < level:
            break
        if indent > level:
            pending = Node("")
            pos = parse_block(items, pos, indent, pending)
            continue
        pos += 1
        if m.group("subtest"):
            node.name = node.name or m.group("subtest").strip()
        elif m.group("plan") is not None and node.plan is None:
            node.plan = int(m.group("count"))
        elif m.group("result"):
            child = pending or Node("")
            pending = None
            child.name = m.group("name").strip() or child.name
            child.ok = m.group("notok") is None
            child.num = int(m.group("num"))
            child.directive = (m.group("directive") or "").strip()
            child.diag, diag = diag, []
            child.time, timing = timing, None
            node.children.append(child)
    if pending is not None:
        # A nested block with no result line after it: that test died.
        pending.ok = False
        pending.directive = "no result line (crashed or timed out)"
        node.children.append(pending)
    return pos


def is_skip(node):
    return node.directive.upper().startswith("SKIP")


def judge(node, path, known, tally):
    """Count the leaves under node. Returns True if node failed in a way
    not explained by known failures."""
    full = f"{path}/{node.name}" if path else node.name
    if node.children or node.plan is not None:
        unexplained = False
        for c in node.children:
            if judge(c, full, known, tally):
                unexplained = True
        nums = [c.num for c in node.children if c.num is not None]
        for k in sorted(set(range(1, max(nums, default=0) + 1)) - set(nums)):
            tally.fail(f"{full}: result {k} missing (numbers run {nums[0]}..{nums[-1]})")
            unexplained = True
        if node.plan is not None and len(node.children) < node.plan:
            tally.fail(f"{full}: {node.plan - len(node.children)} of {node.plan} planned results missing")
            unexplained = True
        if node.ok is False and not unexplained and not node.children:
            tally.fail(f"{full}: {node.directive or 'failed'}")
            return True
        if node.ok is False and not unexplained and not any(c.ok is False for c in node.children):
            tally.fail(f"{full}: failed after all its subtests passed ({node.directive or 'non-zero exit'})")
            return True
        return unexplained
    if is_skip(node):
        reason = node.directive[4:].strip() or "no reason given"
        tally.skipped += 1
        tally.notes.append(f"SKIP {full}: {reason}")
        tally.case(full, "skip", reason, time=node.time)
        return False
    flaky = getattr(known, "flaky", {})
    if full in flaky:
        tally.seen[full] = "passed" if node.ok else "failed"
        if node.ok:
            tally.passed += 1
            tally.case(full, "pass", time=node.time)
        else:
            tally.skipped += 1
            tally.notes.append(f"SKIP {full}: flaky on 6.12 too: {flaky[full]}")
            tally.case(full, "skip", f"flaky on 6.12 too: {flaky[full]}", node.diag, node.time)
        return False
    if node.ok:
        tally.passed += 1
        tally.case(full, "pass", time=node.time)
        if full in known:
            tally.seen[full] = "passed"
            tally.notes.append(f"NOTE {full} passes but is listed as a known failure; remove it from the list")
        return False
    if full in known:
        tally.seen[full] = "failed"
        tally.skipped += 1
        tally.notes.append(f"SKIP {full}: known failure: {known[full]}")
        tally.case(full, "skip", f"known failure: {known[full]}", node.diag, node.time)
        return False
    tally.fail(f"{full}" + (f": {node.directive}" if node.directive else "")
               + "".join(f"\n        # {d}" for d in node.diag), name=full)
    tally.case(full, "fail", node.directive, node.diag, node.time)
    return True


def judge_ktap(lines, name, known, allow_empty=False):
    tally = Tally()
    root = parse_ktap(lines, name)
    if root.plan is None:
        tally.fail(f"{name}: no KTAP plan line (the test did not run or did not finish)")
    elif root.plan == 0 and not allow_empty:
        tally.fail(f"{name}: planned no test at all (an empty test list proves nothing)")
    judge(root, "", known, tally)
    return tally


def console_lines(path):
    with open(path, errors="replace") as f:
        return [TIMESTAMP.sub("", l.rstrip("\r\n")) for l in f]


def kernel_reports(lines):
    tally = Tally()
    for i, line in enumerate(lines):
        for pat, what in KERNEL_REPORTS:
            if pat.search(line):
                context = "\n      ".join(lines[i : i + 6])
                tally.fail(f"{what} on the console, line {i + 1}:\n      {context}")
                break
    if not tally.failed:
        tally.passed = 1
        tally.case("no kernel report on the console", "pass")
    return tally


def kunit_lines(lines):
    """The KUnit block of the console: from its 'KTAP version' header on."""
    for i, line in enumerate(lines):
        if line.startswith("KTAP version"):
            return lines[i:]
    return None


def read_known(path, config, every=False):
    """Known failures that apply to this config: 'test reason', or
    'test@glob reason' for the configs whose name matches glob (every
    entry, whatever its glob, if every is set). A line 'flaky: test reason'
    is a test that fails now and then on the unpatched kernel too: its
    failure is a skip, its pass a pass. Returns (known, flaky)."""
    known, flaky = {}, {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                table = known
                if line.startswith("flaky:"):
                    table, line = flaky, line[len("flaky:"):].strip()
                test, _, reason = line.partition(" ")
                if not reason.strip():
                    sys.exit(f"verdict: {path}: '{test}' has no reason; every known failure needs one")
                test, _, glob = test.partition("@")
                if glob and not every and not fnmatch.fnmatchcase(config, glob):
                    continue
                table[test] = reason.strip()
    return known, flaky


def kconfig_has_kunit_tests(path):
    if not path or not os.path.exists(path):
        return False, False
    text = open(path).read()
    kunit = re.search(r"^CONFIG_KUNIT=y", text, re.M) is not None
    suites = re.search(r"^CONFIG_\w*KUNIT\w*TEST=y", text, re.M) is not None
    return kunit, suites


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True, help="config name, for the report")
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", help="directory of <group>.tap files")
    ap.add_argument("--groups", default="", help="comma-separated groups that must have results")
    ap.add_argument("--kconfig", help="the kernel's .config (is KUnit expected?)")
    ap.add_argument("--known", help="known-failures file")
    ap.add_argument("--baseline", action="store_true",
                    help="the unpatched kernel: every known failure must fail here")
    ap.add_argument("--boot-status", type=int, default=0, help="boot/qemu's exit status")
    ap.add_argument("--counts", help="write 'passed failed skipped' here")
    ap.add_argument("--json", help="write the stages and cases here (tests/results.py reads it)")
    ap.add_argument("--build-time", type=int, help="seconds the kernel build took, for --json")
    ap.add_argument("--boot-time", type=int, help="seconds the guest ran, for --json")
    ap.add_argument("-v", "--verbose", action="store_true", help="list skips too")
    args = ap.parse_args()

    known, flaky = read_known(args.known, args.name, every=args.baseline)
    known = Known(known, flaky)
    total = Tally()
    stages = []

    if not os.path.exists(args.console):
        t = Tally()
        t.fail(f"no console log at {args.console}")
        stages.append(("boot", t))
    else:
        lines = console_lines(args.console)
        boot = Tally()
        if args.boot_status == 124:
            boot.fail("guest hung: no power-off before the timeout; last console lines:\n      "
                      + "\n      ".join(lines[-10:]))
        elif args.boot_status == 255:
            boot.fail("guest stopped before the tests finished (panic or reset)")
        stages.append(("boot", boot if boot.failed else Tally()))
        if not boot.failed:
            stages[-1][1].passed = 1
            stages[-1][1].case("the guest ran the tests and powered off", "pass")
        stages.append(("kernel log", kernel_reports(lines)))
        kunit_on, suites = kconfig_has_kunit_tests(args.kconfig)
        if kunit_on:
            block = kunit_lines(lines)
            if block is None:
                t = Tally()
                t.fail("kunit: no KTAP header on the console, though CONFIG_KUNIT=y")
                stages.append(("kunit", t))
            else:
                # No suite configured: KUnit still prints its header and "1..0".
                t = judge_ktap(block, "kunit", known, allow_empty=not suites)
                stages.append(("kunit", t))

    for group in [g for g in args.groups.split(",") if g]:
        path = os.path.join(args.results or "", f"{group}.tap")
        if not os.path.exists(path):
            t = Tally()
            t.fail(f"{group}: no results (expected {path})")
        else:
            with open(path, errors="replace") as f:
                tap = f.readlines()
            t = judge_ktap(tap, group, known)
            t.time = group_time(tap, group)
        stages.append((group, t))

    if args.baseline and (known or known.flaky):
        seen = {}
        for _, t in stages:
            seen.update(t.seen)
        t = Tally()
        for test in known.flaky:
            # it may pass or fail here, but it must still exist and run
            if test in seen:
                t.passed += 1
                t.case(f"{test} (flaky) ran on the unpatched kernel", "pass")
            else:
                t.fail(f"{test} (listed as flaky) did not run on {args.name}: take it out of "
                       f"{os.path.basename(args.known)} or find where it went")
        for test in known:
            if seen.get(test) == "failed":
                t.passed += 1
                t.case(f"{test} fails on the unpatched kernel too", "pass")
            else:
                how = "passed" if seen.get(test) == "passed" else "did not run"
                t.fail(f"{test} {how} on {args.name}, the unpatched kernel, so it is not a known "
                       f"failure of 6.12: take it out of {os.path.basename(args.known)} "
                       "(a failure of ours gets fixed or an open issue)")
        stages.append(("known fails", t))

    for stage, t in stages:
        status = "FAIL" if t.failed else "ok"
        print(f"  {args.name:<12} {stage:<12} {status:<4}  {t.summary()}")
        for n in t.notes:
            if n.startswith("FAIL") or args.verbose or n.startswith("NOTE"):
                print(f"      {n}")
        total.add(t)

    print(f"{args.name}: {total.summary()}")
    if args.counts:
        with open(args.counts, "w") as f:
            f.write(f"{total.passed} {total.failed} {total.skipped}\n")
    if args.json:
        write_json(args, stages, known)
    return 1 if total.failed else 0


def group_time(tap, group):
    """The seconds the guest's runner says the group took, or None."""
    pat = re.compile(rf"^# group {re.escape(group)} took (\d+) s")
    for line in tap:
        m = pat.match(line)
        if m:
            return int(m.group(1))
    return None


def write_json(args, stages, known):
    """One config's results, as tests/results.py documents them."""
    total = Tally()
    for _, t in stages:
        total.add(t)
    out = [{"name": name, "result": "fail" if t.failed else "pass",
            "passed": t.passed, "failed": t.failed, "skipped": t.skipped,
            "time_s": getattr(t, "time", None), "cases": t.cases}
           for name, t in stages]
    out[0]["time_s"] = args.boot_time
    doc = {"config": args.name,
           "result": "fail" if total.failed else "pass",
           "build": {"result": "pass", "time_s": args.build_time, "log": []},
           "stages": out,
           "summary": {"passed": total.passed, "failed": total.failed, "skipped": total.skipped},
           "known_failures": dict(known), "flaky": dict(known.flaky)}
    with open(args.json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
