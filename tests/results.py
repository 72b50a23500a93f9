#!/usr/bin/env python3
"""Machine-readable results of make test and make check: JSON and JUnit XML.

One config's results (written by tests/verdict.py --json, or by
'failed-early' below when its kernel or its guest did not build):

  {"config": "all", "result": "pass" | "fail",
   "build": {"result", "time_s", "log": [last lines of a failed build]},
   "stages": [{"name": "boot" | "kernel log" | "kunit" | GROUP | "known fails",
               "result", "passed", "failed", "skipped", "time_s",
               "cases": [{"name", "result": "pass" | "fail" | "skip",
                          "reason", "time_s", "log": [lines]}]}],
   "summary": {"passed", "failed", "skipped"},
   "known_failures": {test: why}, "flaky": {test: why}}

time_s is null where nothing measured it. make check merges these, with
its host-only stages (harness, bench, patches, build) in the same stage form, into

  {"format": "stack-results", "version": 1, "commit": ..., "result": ...,
   "host": [stage...], "configs": [config...], "summary": {...}}

and both commands write JUnit XML beside the JSON (one testsuite per
config and stage), which CI web pages render.

  tests/results.py failed-early CONFIG build|guest SECONDS LOG OUT.json
  tests/results.py junit IN.json OUT.xml
  tests/results.py merge OUT.json OUT.xml HOST.tsv CONFIG.json...
  tests/results.py tap-tsv STAGE LOG
  tests/results.py validate FILE.json | FILE.xml...

HOST.tsv has one line per host-only check: stage, case, pass|fail, log file;
'tap-tsv' prints those lines for the ok / not ok lines of the KTAP in LOG.
'validate' checks a file against the layout above (the harness runs it).
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

RESULTS = ("pass", "fail", "skip")
FORMAT, VERSION = "stack-results", 1


def tail(path, n=25):
    try:
        with open(path, errors="replace") as f:
            return [l.rstrip("\n") for l in f.readlines()[-n:]]
    except OSError:
        return [f"(no log at {path})"]


def stage_doc(name, cases, time_s=None):
    counts = {r: sum(c["result"] == r for c in cases) for r in RESULTS}
    return {"name": name, "result": "fail" if counts["fail"] else "pass",
            "passed": counts["pass"], "failed": counts["fail"], "skipped": counts["skip"],
            "time_s": time_s, "cases": cases}


def case_doc(name, result, reason="", log=None, time_s=None):
    return {"name": name, "result": result, "reason": reason, "time_s": time_s, "log": log or []}


def failed_early(config, stage, secs, log, out):
    """The results of a config that stopped before its guest ran: its
    kernel did not build (stage 'build'), or the rootfs or the guest's
    binaries did not (stage 'guest', after a build that took secs)."""
    if stage == "build":
        build = {"result": "fail", "time_s": int(secs), "log": tail(log)}
        stages = []
    else:
        build = {"result": "pass", "time_s": None, "log": []}
        stages = [stage_doc(stage, [case_doc("rootfs and guest binaries built", "fail",
                                             "the guest could not be prepared", tail(log))])]
    doc = {"config": config, "result": "fail", "build": build, "stages": stages,
           "summary": summary(stages, 1 if stage == "build" else 0),
           "known_failures": {}, "flaky": {}}
    write_json(doc, out)


def write_json(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def summary(stages, extra_failed=0):
    s = {k: sum(st[k] for st in stages) for k in ("passed", "failed", "skipped")}
    s["failed"] += extra_failed
    return s


def config_suites(doc):
    """(suite name, time, cases) for each part of one config's results."""
    b = doc["build"]
    build_case = case_doc("kernel builds", "pass" if b["result"] == "pass" else "fail",
                          "" if b["result"] == "pass" else "the kernel did not build",
                          b.get("log"), b.get("time_s"))
    yield f"{doc['config']}/build", b.get("time_s"), [build_case]
    for st in doc["stages"]:
        yield f"{doc['config']}/{st['name']}", st.get("time_s"), st["cases"]


def junit(suites, path):
    """Write JUnit XML: suites is an iterable of (name, time, cases)."""
    root = ET.Element("testsuites", name="linux memory-tiering stack")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for name, time_s, cases in suites:
        s = ET.SubElement(root, "testsuite", name=name, tests=str(len(cases)),
                          failures=str(sum(c["result"] == "fail" for c in cases)),
                          errors="0", skipped=str(sum(c["result"] == "skip" for c in cases)))
        if time_s is not None:
            s.set("time", str(time_s))
        for c in cases:
            tc = ET.SubElement(s, "testcase", classname=name.replace("/", "."), name=c["name"])
            if c.get("time_s") is not None:
                tc.set("time", str(c["time_s"]))
            if c["result"] == "fail":
                el = ET.SubElement(tc, "failure", message=c.get("reason") or c["name"])
                el.text = "\n".join(c.get("log") or [])
            elif c["result"] == "skip":
                ET.SubElement(tc, "skipped", message=c.get("reason") or "skipped")
        for k in totals:
            totals[k] += int(s.get(k))
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def host_stages(tsv):
    stages, order = {}, []
    if tsv and os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 4:
                    continue
                stage, name, result, log = parts
                if stage not in stages:
                    stages[stage] = []
                    order.append(stage)
                stages[stage].append(case_doc(name, result, log=tail(log) if result == "fail" and log else []))
    return [stage_doc(s, stages[s]) for s in order]


def tap_tsv(stage, log):
    """HOST.tsv lines for the result lines in log: every line that starts
    with "ok" or "not ok", as make check counts them ("ok 3 name", and
    bench/check's own "not ok: what")."""
    pat = re.compile(r"^(not )?ok(.*)$")
    with open(log, errors="replace") as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if m:
                name = re.sub(r"^[\s:]*\d*\s*-?\s*", "", m.group(2)).replace("\t", " ").strip()
                name = name or "(unnamed)"
                print(f"{stage}\t{name}\t{'fail' if m.group(1) else 'pass'}\t{log}")


def commit():
    try:
        return subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def merge(out_json, out_xml, tsv, config_files):
    host = host_stages(tsv)
    configs, missing = [], []
    for p in config_files:
        if os.path.exists(p):
            with open(p) as f:
                configs.append(json.load(f))
        else:
            missing.append(p)
    s = summary(host)
    for c in configs:
        for k in s:
            s[k] += c["summary"][k]
    s["failed"] += len(missing)
    doc = {"format": FORMAT, "version": VERSION, "commit": commit(),
           "result": "fail" if s["failed"] else "pass",
           "host": host, "configs": configs, "summary": s,
           "missing": missing}
    write_json(doc, out_json)
    suites = [(f"host/{h['name']}", h.get("time_s"), h["cases"]) for h in host]
    for c in configs:
        suites += list(config_suites(c))
    for p in missing:
        suites.append((f"missing/{os.path.basename(os.path.dirname(p))}", None,
                       [case_doc("results written", "fail", f"no results at {p}")]))
    junit(suites, out_xml)


# validate: the layout above, checked by hand (Debian's python3 may lack
# jsonschema), and the JUnit counts against the test cases they count.
def check_stage(st, where, errors):
    for k, t in (("name", str), ("result", str), ("passed", int), ("failed", int),
                 ("skipped", int), ("cases", list)):
        if not isinstance(st.get(k), t):
            errors.append(f"{where}: '{k}' missing or not a {t.__name__}")
            return
    if st["result"] not in ("pass", "fail"):
        errors.append(f"{where}: result '{st['result']}'")
    if (st["result"] == "fail") != (st["failed"] > 0):
        errors.append(f"{where}: result {st['result']} with {st['failed']} failed")
    if st.get("time_s") is not None and not isinstance(st["time_s"], int):
        errors.append(f"{where}: time_s is not whole seconds")
    counts = {r: 0 for r in RESULTS}
    for i, c in enumerate(st["cases"]):
        cw = f"{where}/cases[{i}]"
        if not isinstance(c.get("name"), str) or not c["name"]:
            errors.append(f"{cw}: no name")
        if c.get("result") not in RESULTS:
            errors.append(f"{cw}: result {c.get('result')!r}")
            continue
        if not isinstance(c.get("log"), list) or not isinstance(c.get("reason"), str):
            errors.append(f"{cw}: log must be a list and reason a string")
        counts[c["result"]] += 1
    # a stage may count a failure that no case names (a missing plan line)
    if counts["pass"] != st["passed"] or counts["skip"] != st["skipped"] or counts["fail"] > st["failed"]:
        errors.append(f"{where}: counts {st['passed']}/{st['failed']}/{st['skipped']} "
                      f"do not match its cases {counts['pass']}/{counts['fail']}/{counts['skip']}")
    if st["failed"] and not counts["fail"]:
        errors.append(f"{where}: {st['failed']} failed, but no case says which")


def check_config(doc, where, errors):
    if not isinstance(doc.get("config"), str):
        errors.append(f"{where}: no config name")
        return
    where = f"{where}[{doc['config']}]"
    b = doc.get("build")
    if not isinstance(b, dict) or b.get("result") not in ("pass", "fail"):
        errors.append(f"{where}: build result missing")
        return
    if b["result"] == "fail" and doc["stages"]:
        errors.append(f"{where}: stages after a failed build")
    for i, st in enumerate(doc.get("stages", [])):
        check_stage(st, f"{where}/{st.get('name', i)}", errors)
    want = summary(doc["stages"], 1 if b["result"] == "fail" else 0)
    if doc.get("summary") != want:
        errors.append(f"{where}: summary {doc.get('summary')} is not the sum of its stages {want}")
    if doc.get("result") != ("fail" if want["failed"] else "pass"):
        errors.append(f"{where}: result {doc.get('result')} with {want['failed']} failed")
    for k in ("known_failures", "flaky"):
        if not isinstance(doc.get(k), dict):
            errors.append(f"{where}: '{k}' missing")


def validate_json(path):
    errors = []
    with open(path) as f:
        doc = json.load(f)
    if "configs" in doc:
        if doc.get("format") != FORMAT or doc.get("version") != VERSION:
            errors.append(f"format/version is not {FORMAT}/{VERSION}")
        for i, h in enumerate(doc.get("host", [])):
            check_stage(h, f"host/{h.get('name', i)}", errors)
        for c in doc["configs"]:
            check_config(c, "configs", errors)
        s = summary(doc.get("host", []), len(doc.get("missing", [])))
        for c in doc["configs"]:
            for k in s:
                s[k] += c.get("summary", {}).get(k, 0)
        if doc.get("summary") != s:
            errors.append(f"summary {doc.get('summary')} is not the sum {s}")
    else:
        check_config(doc, "config", errors)
    return errors


def validate_xml(path):
    errors = []
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        return [f"root element is <{root.tag}>, not <testsuites>"]
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for s in root.findall("testsuite"):
        cases = s.findall("testcase")
        got = {"tests": len(cases),
               "failures": sum(c.find("failure") is not None for c in cases),
               "skipped": sum(c.find("skipped") is not None for c in cases)}
        for k, v in got.items():
            if s.get(k) != str(v):
                errors.append(f"testsuite {s.get('name')}: {k}={s.get(k)}, its testcases say {v}")
            totals[k] += v
        for c in cases:
            if not c.get("name") or not c.get("classname"):
                errors.append(f"testsuite {s.get('name')}: a testcase without name or classname")
    for k, v in totals.items():
        if root.get(k) != str(v):
            errors.append(f"testsuites: {k}={root.get(k)}, its suites say {v}")
    return errors


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
    elif len(argv) == 7 and argv[1] == "failed-early":
        failed_early(*argv[2:7])
    elif len(argv) == 4 and argv[1] == "junit":
        with open(argv[2]) as f:
            junit(config_suites(json.load(f)), argv[3])
    elif len(argv) == 4 and argv[1] == "tap-tsv":
        tap_tsv(argv[2], argv[3])
    elif len(argv) >= 5 and argv[1] == "merge":
        merge(argv[2], argv[3], argv[4], argv[5:])
    elif len(argv) >= 3 and argv[1] == "validate":
        bad = 0
        for p in argv[2:]:
            errors = validate_xml(p) if p.endswith(".xml") else validate_json(p)
            for e in errors:
                print(f"{p}: {e}")
            bad += bool(errors)
        return 1 if bad else 0
    else:
        sys.exit("usage: tests/results.py failed-early|junit|merge|tap-tsv|validate ...; "
                 "the top of tests/results.py says what each takes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
