#!/usr/bin/python3
"""Turn a benchmark run's raw guest output into tables and a plot.

    bench/aggregate.py RUN_DIR [--base pristine] [--patched all] [--no-png]

Reads RUN_DIR/raw/<kernel>/out/<variant>.<case>.<rep>.txt (written by
bench/guest.sh) and writes into RUN_DIR:
    results.md     the cover letter's tables per case (time,
                   pgpromote_success, thp_migration_success: base vs
                   patched and the change in percent), then placement
                   (t50, t95, precision) and cost tables; median (min-max)
    results.csv    one row per run
    placement.png  hot-set share on the top tier over time, one line per
                   variant (median over repetitions), one panel per case
The tables need only the standard library; the plot needs matplotlib.
"""
import argparse
import csv
import glob
import os
import statistics
import sys

CASES = {
    "anon": "mode 1: anonymous 4K pages, MAP_POPULATE, 50% loads / 50% stores",
    "file": "mode 2: file mapped MAP_SHARED|MAP_POPULATE, 100% loads",
    "thp": "mode 3: THP (MADV_HUGEPAGE), moved to the slow node, 50/50",
    "skewed": "skewed: a small hot set takes most accesses, the rest is touched rarely",
    "full": "nearly full top tier: nodes 0-1 filled with cold memory to 4 MiB "
            "above their high watermark, skewed accesses; promoting most of the "
            "hot set needs demotion, and the rate limit and hot threshold decide",
    "held": "top tier held full: nodes 0-1 kept at their high watermark with "
            "locked memory for the first 10 s, demotion off (nothing can be "
            "promoted, except into node 0's DMA zone, about 11 MiB), then "
            "freed; a 32 MiB hot set, skewed accesses",
}
SOURCES = ["NUMAB0", "NUMAB2", "pgtscan", "hwhints"]
# the sampler asks every 100 ms: a gap longer than this is a stall
STALL_MS = 1000
TCG_NOTE = ("Under QEMU TCG every node's memory is equally fast, so the time "
            "column shows each source's overhead (scanning, faults, "
            "migration), not the gain a real slow tier would give.")


def num(v):
    """A number from a key=value field, or None for NA/missing."""
    if v is None or v in ("NA", ""):
        return None
    try:
        return int(v)
    except ValueError:
        return float(v)


def kv(words):
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
    return out


def parse_run(path):
    """One guest output file as a dict; None if it is not one."""
    r = {"file": path, "samples": [], "delta": {}, "cpu": {}, "rc": None,
         "result": None, "setup": {}, "na": None, "hold": None}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            tag = w[0]
            if tag == "meta":
                r.update(kv(w[1:]))
            elif tag == "na":
                r["na"] = line.strip()[len("na reason="):]
            elif tag == "delta":
                r["delta"] = {k: num(v) for k, v in kv(w[1:]).items()}
            elif tag == "cpu_ms":
                r["cpu"] = {k: num(v) for k, v in kv(w[1:]).items()}
            elif tag == "rc" and len(w) > 1:
                r["rc"] = num(w[1])
            elif tag == "setup":
                r["setup"] = kv(w[1:])
            elif tag == "sample":
                s = kv(w[1:])
                hot = num(s.get("hot")) or 0
                if hot:
                    r["samples"].append((num(s["t_ms"]), num(s["hot_top"]) / hot))
            elif tag == "result":
                r["result"] = {k: num(v) for k, v in kv(w[1:]).items()}
            elif tag == "hold":
                r["hold"] = {k: num(v) for k, v in kv(w[1:]).items()}
    if "variant" not in r or "kernel" not in r:
        return None
    r["rep"] = num(r.get("rep"))
    return r


def load(run_dir):
    runs = []
    for p in sorted(glob.glob(os.path.join(run_dir, "raw", "*", "out", "*.txt"))):
        r = parse_run(p)
        if r:
            runs.append(r)
    return runs


def ok(r):
    return r["na"] is None and r["rc"] == 0 and r["result"] is not None


def metrics(r):
    """The per-run numbers the tables and the CSV use (None: not known)."""
    res, d, cpu = r["result"] or {}, r["delta"], r["cpu"]
    prom = d.get("pgpromote_success")

    def per_promoted(x):
        if x is None or not prom:
            return None
        return x / prom

    def t(k):
        v = res.get(k)
        return None if v is None or v < 0 else v
    hot = res.get("hot") or 0
    released = (r["hold"] or {}).get("released_ms")
    held_pct = after_release = None
    if released is not None and released >= 0:
        before = [f for (ms, f) in r["samples"] if ms < released]
        held_pct = 100.0 * max(before) if before else None
        later = [ms for (ms, f) in r["samples"] if ms >= released and f >= 0.95]
        after_release = later[0] - released if later else None
    return {
        "elapsed_us": res.get("elapsed_us"),
        "timed_out": res.get("timed_out"),
        "pgpromote_success": prom,
        "thp_migration_success": d.get("thp_migration_success"),
        "t50_ms": t("t50_ms"),
        "t95_ms": t("t95_ms"),
        "hot_on_top_pct": 100.0 * res.get("hot_top", 0) / hot if hot else None,
        "precision": None if (res.get("precision") or -1) < 0 else res.get("precision"),
        "promoted_hot": res.get("hot_top"),
        "promoted_cold": res.get("cold_top"),
        "kmigrated_cpu_ms": cpu.get("kmigrated"),
        "klruscand_cpu_ms": cpu.get("klruscand"),
        "records_per_promoted": per_promoted(d.get("pghot_recorded_accesses")),
        "visited_per_promoted": per_promoted(d.get("pghot_kmigrated_visited")),
        "numa_hint_faults": d.get("numa_hint_faults"),
        "demoted": (None if d.get("pgdemote_kswapd") is None
                    else d.get("pgdemote_kswapd") + (d.get("pgdemote_direct") or 0)),
        "kmigrated_passes": d.get("pghot_kmigrated_passes"),
        "kmigrated_full": d.get("pghot_kmigrated_full"),
        "failed_migrations": d.get("pgmigrate_fail"),
        "held_hot_pct": held_pct,
        "t95_after_release_ms": after_release,
        "sampler_max_gap_ms": res.get("max_gap_ms"),
        "sampler_max_query_ms": res.get("max_query_ms"),
    }


def summary(values):
    """(median, min, max, n) of the known values; None if there are none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    return statistics.median(v), min(v), max(v), len(v)


def fmt_num(x, digits=0):
    if x is None:
        return "NA"
    if digits == 0:
        return f"{round(x):,}"
    return f"{x:,.{digits}f}"


def cell(s, digits=0):
    if s is None:
        return "NA"
    med, lo, hi, n = s
    if n == 1 or lo == hi:
        return fmt_num(med, digits)
    return f"{fmt_num(med, digits)} ({fmt_num(lo, digits)}–{fmt_num(hi, digits)})"


def change(base, patched):
    if base is None or patched is None:
        return "NA"
    b, p = base[0], patched[0]
    if b == 0:
        return "0%" if p == 0 else "NA"
    return f"{100.0 * (p - b) / b:+.1f}%"


class Table:
    def __init__(self, runs, base, patched):
        self.groups = {}
        self.na = {}
        self.reps = {}
        self.failed = []
        self.injected = set()
        for r in runs:
            key = (r["kernel"], r["variant"], r["case"])
            self.reps.setdefault(key, 0)
            self.reps[key] += 1
            # hwhints fed by the IBS sample injector, not by IBS
            if r.get("hwhints") == "injected":
                self.injected.add((r["kernel"], r["variant"]))
            if r["na"] is not None:
                self.na[key] = r["na"]
            elif ok(r):
                self.groups.setdefault(key, []).append(r)
            else:
                self.failed.append(r)
        self.base, self.patched = base, patched

    def label(self, kernel, variant):
        """How the tables name a variant: say so when its samples were made up."""
        name = f"{kernel}:{variant}"
        return name + " (injected samples)" if (kernel, variant) in self.injected else name

    def stat(self, kernel, variant, case, name):
        rs = self.groups.get((kernel, variant, case))
        if not rs:
            return None
        return summary([metrics(r)[name] for r in rs])

    def state(self, kernel, variant, case):
        """'ok', 'na', 'failed' or 'absent'."""
        key = (kernel, variant, case)
        if key in self.groups:
            return "ok"
        if key in self.na:
            return "na"
        return "failed" if key in self.reps else "absent"

    def cases(self):
        seen = {c for (_, _, c) in self.reps}
        return [c for c in CASES if c in seen] + sorted(seen - set(CASES))

    def variants(self, case):
        out = []
        # make run benchmarks one kernel: base and patched are the same
        for k in dict.fromkeys((self.base, self.patched)):
            for s in SOURCES:
                if (k, s, case) in self.reps:
                    out.append((k, s))
        extra = sorted({(k, s) for (k, s, c) in self.reps if c == case} - set(out))
        return out + extra


def cover_table(t, case, title, name, out):
    out.append(f"#### {title}\n")
    one = t.base == t.patched
    out.append(f"| Source | `{t.base}` |" if one else "| Source | Base | Patched | Change |")
    out.append("|---|---:|" if one else "|---|---:|---:|---:|")
    for s in SOURCES:
        if t.state(t.base, s, case) == "absent" and t.state(t.patched, s, case) == "absent":
            continue
        b = t.stat(t.base, s, case, name)
        p = t.stat(t.patched, s, case, name)
        out.append(f"| {s} | {cell(b)} |" if one else f"| {s} | {cell(b)} | {cell(p)} | {change(b, p)} |")
    out.append("")


def variant_rows(t, case, cols, out):
    out.append("| Variant | " + " | ".join(c[0] for c in cols) + " |")
    out.append("|---|" + "---:|" * len(cols))
    for k, s in t.variants(case):
        st = t.state(k, s, case)
        if st != "ok":
            out.append(f"| {t.label(k, s)} | " + " | ".join(["NA"] * len(cols)) + " |")
            continue
        cells = []
        for _, name, digits in cols:
            st = t.stat(k, s, case, name)
            never = name in ("t50_ms", "t95_ms", "t95_after_release_ms") and st is None
            cells.append("never" if never else cell(st, digits))
        out.append(f"| {t.label(k, s)} | " + " | ".join(cells) + " |")
    out.append("")


def worst_cell(s, digits, worst):
    """Median, and the worst repetition in brackets when it differs."""
    if s is None:
        return "NA"
    med, lo, hi, n = s
    w = lo if worst == "min" else hi
    if n == 1 or w == med:
        return fmt_num(med, digits)
    return f"{fmt_num(med, digits)} ({fmt_num(w, digits)})"


def summary_table(t, out):
    """One table over every case: each variant that promotes, against the
    base kernel's NUMAB2 in the same case (the README's results table)."""
    out.append(f"## Against `{t.base}:NUMAB2`, every case\n")
    out.append("Medians; in brackets the worst repetition where it differs (the "
               "lowest share on top and precision; the highest t95, cold pages, "
               "CPU time and visited records). "
               "\"time / base\" is the median time over the base NUMAB2 median of "
               "the same case.\n")
    out.append("| case | variant | time / base | t95 ms | hot set on top % | precision "
               "| cold promoted | kmigrated CPU ms | visited / promoted |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for case in t.cases():
        base = t.stat(t.base, "NUMAB2", case, "elapsed_us")
        for k, s in t.variants(case):
            if s == "NUMAB0" or t.state(k, s, case) != "ok":
                continue
            el = t.stat(k, s, case, "elapsed_us")
            ratio = "NA" if not base or not el or not base[0] else f"{el[0] / base[0]:.2f}"
            got, n = reached(t, k, s, case, "t95_ms")
            t95 = "never" if not got else worst_cell(t.stat(k, s, case, "t95_ms"), 0, "max")
            if 0 < got < n:
                t95 = f"{fmt_num(t.stat(k, s, case, 't95_ms')[0])} ({n - got} never)"
            cells = [ratio, t95,
                     worst_cell(t.stat(k, s, case, "hot_on_top_pct"), 1, "min"),
                     worst_cell(t.stat(k, s, case, "precision"), 3, "min"),
                     worst_cell(t.stat(k, s, case, "promoted_cold"), 0, "max"),
                     worst_cell(t.stat(k, s, case, "kmigrated_cpu_ms"), 0, "max"),
                     worst_cell(t.stat(k, s, case, "visited_per_promoted"), 1, "max")]
            out.append(f"| {case} | {t.label(k, s)} | " + " | ".join(cells) + " |")
    out.append("")
    late = []
    for case in t.cases():
        for k, s in t.variants(case):
            for r in t.groups.get((k, s, case), []):
                m = metrics(r)
                if (m["sampler_max_gap_ms"] or 0) > STALL_MS:
                    late.append(f"- {k}:{s} {case} rep {r['rep']}: no sample for "
                                f"{fmt_num(m['sampler_max_gap_ms'])} ms (longest "
                                f"move_pages() query {fmt_num(m['sampler_max_query_ms'])} ms), "
                                f"kmigrated CPU {fmt_num(m['kmigrated_cpu_ms'])} ms")
    if late:
        out.append(f"Runs whose sampler went over {STALL_MS} ms without a sample "
                   "(the guest, or the query, stalled):\n")
        out.extend(late)
        out.append("")


def reached(t, k, s, case, name):
    rs = t.groups.get((k, s, case), [])
    return sum(1 for r in rs if metrics(r)[name] is not None), len(rs)


def write_md(t, runs, run_dir, png_ok):
    out = [f"# Promotion benchmark: {os.path.basename(os.path.abspath(run_dir))}", ""]
    kernels = (f"One kernel, `{t.base}`, no base to compare with. " if t.base == t.patched else
               f"Base = kernel `{t.base}`, patched = kernel `{t.patched}`. ")
    out.append(kernels + "Each cell: median (min–max) over the repetitions; every variant "
               "ran with the same seeds.")
    out.append("")
    out.append(f"**Note:** {TCG_NOTE}")
    out.append("")
    summary_table(t, out)
    setups = {}
    for r in runs:
        if r["setup"]:
            setups.setdefault(r["case"], r["setup"])
    for case in t.cases():
        out.append(f"## {case}: {CASES.get(case, case)}")
        out.append("")
        s = setups.get(case)
        if s:
            pages = int(s.get("pages", 0))
            out.append(f"{pages * 4 // 1024} MiB ({pages} pages), hot set {s.get('hot')} pages, "
                       f"{s.get('threads')} threads x {s.get('accesses')} accesses, "
                       f"{s.get('pattern')} ({s.get('hot_share')}% of accesses to the hot set), "
                       f"stores {s.get('store_pct')}%, THP backed: {s.get('thp')}, "
                       f"the workers' TLB flushed every {s.get('tlb_flush_ms', 'NA')} ms.")
            out.append("")
        cover_table(t, case, "Time taken (microseconds, lower is better)", "elapsed_us", out)
        cover_table(t, case, "Pages migrated (pgpromote_success)", "pgpromote_success", out)
        cover_table(t, case, "THP migrated (thp_migration_success)", "thp_migration_success", out)
        out.append("#### Placement of the hot set (sampled every 100 ms with move_pages)\n")
        variant_rows(t, case, [
            ("t50 ms", "t50_ms", 0), ("t95 ms", "t95_ms", 0),
            ("hot set on top at end %", "hot_on_top_pct", 1),
            ("precision", "precision", 3),
            ("cold pages promoted", "promoted_cold", 0)], out)
        if any(r["hold"] for k, s in t.variants(case) for r in t.groups.get((k, s, case), [])):
            out.append("#### While the top tier was held full, and after\n")
            variant_rows(t, case, [
                ("max hot set on top while held %", "held_hot_pct", 1),
                ("t95 after release ms", "t95_after_release_ms", 0),
                ("kmigrated CPU ms", "kmigrated_cpu_ms", 0),
                ("kmigrated passes", "kmigrated_passes", 0)], out)
        notes = []
        for k, s in t.variants(case):
            if t.state(k, s, case) == "ok":
                for name in ("t50_ms", "t95_ms"):
                    got, n = reached(t, k, s, case, name)
                    if 0 < got < n:
                        notes.append(f"{k}:{s} reached {name[:3]} in {got} of {n} runs "
                                     "(the median is over those)")
        out.extend(f"- {x}" for x in notes)
        if notes:
            out.append("")
        out.append("#### Cost\n")
        variant_rows(t, case, [
            ("kmigrated CPU ms", "kmigrated_cpu_ms", 0),
            ("klruscand CPU ms", "klruscand_cpu_ms", 0),
            ("pghot records / promoted page", "records_per_promoted", 2),
            ("visited PFNs / promoted page", "visited_per_promoted", 1),
            ("NUMA hint faults", "numa_hint_faults", 0),
            ("pages demoted", "demoted", 0),
            ("kmigrated passes", "kmigrated_passes", 0),
            ("passes stopped by a full node", "kmigrated_full", 0),
            ("failed migrations", "failed_migrations", 0)], out)
        for k, s in t.variants(case):
            st = t.state(k, s, case)
            if st == "na":
                out.append(f"- {k}:{s}: NA: {t.na[(k, s, case)]}")
            elif st == "failed":
                out.append(f"- {k}:{s}: every run failed (see the raw output)")
        out.append("")
    if t.failed:
        out.append("## Failed runs\n")
        for r in t.failed:
            out.append(f"- {r['kernel']}:{r['variant']} {r['case']} rep {r['rep']}: "
                       f"rc {r['rc']} ({os.path.relpath(r['file'], run_dir)})")
        out.append("")
    out.append("Files: `results.csv` (one row per run)" +
               (", `placement.png` (hot set on the top tier over time)." if png_ok else
                "; no `placement.png` (matplotlib missing)."))
    with open(os.path.join(run_dir, "results.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


CSV_FIELDS = ["kernel", "variant", "case", "rep", "status", "reason", "elapsed_us",
              "timed_out", "pgpromote_success", "thp_migration_success", "t50_ms",
              "t95_ms", "hot_on_top_pct", "precision", "promoted_hot", "promoted_cold",
              "kmigrated_cpu_ms", "klruscand_cpu_ms", "records_per_promoted",
              "visited_per_promoted", "numa_hint_faults", "demoted", "kmigrated_passes",
              "kmigrated_full", "failed_migrations", "held_hot_pct", "t95_after_release_ms",
              "sampler_max_gap_ms", "sampler_max_query_ms"]


def write_csv(runs, run_dir):
    with open(os.path.join(run_dir, "results.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in sorted(runs, key=lambda r: (r["case"], r["kernel"], r["variant"], r["rep"] or 0)):
            row = {"kernel": r["kernel"], "variant": r["variant"], "case": r["case"],
                   "rep": r["rep"]}
            if r["na"] is not None:
                row.update(status="NA", reason=r["na"])
            elif not ok(r):
                row.update(status="failed", reason=f"rc {r['rc']}")
            else:
                row["status"] = "ok"
                for k, v in metrics(r).items():
                    row[k] = "" if v is None else (round(v, 4) if isinstance(v, float) else v)
            w.writerow(row)


def curve(samples, grid):
    """The sampled share at each grid time (last sample at or before it)."""
    out, i, last = [], 0, 0.0
    for g in grid:
        while i < len(samples) and samples[i][0] <= g:
            last = samples[i][1]
            i += 1
        out.append(last)
    return out


def median_curves(t, case, step=100):
    curves = {}
    for k, s in t.variants(case):
        rs = [r for r in t.groups.get((k, s, case), []) if r["samples"]]
        if not rs:
            continue
        end = max(r["samples"][-1][0] for r in rs)
        grid = list(range(0, end + step, step))
        per = [curve(r["samples"], grid) for r in rs]
        curves[t.label(k, s)] = (grid, [100.0 * statistics.median(col) for col in zip(*per)])
    return curves


def write_png(t, run_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("aggregate: matplotlib is missing: no placement.png "
              "(apt-get install python3-matplotlib)", file=sys.stderr)
        return False
    cases = [c for c in t.cases() if median_curves(t, c)]
    if not cases:
        return False
    fig, axes = plt.subplots(len(cases), 1, figsize=(8, 3.2 * len(cases)), squeeze=False)
    for ax, case in zip(axes[:, 0], cases):
        for label, (grid, ys) in median_curves(t, case).items():
            ax.plot([g / 1000 for g in grid], ys, label=label, drawstyle="steps-post")
        ax.set_title(f"{case}: hot set on the top tier (median of runs)")
        ax.set_xlabel("time since the accesses started (s)")
        ax.set_ylabel("% of hot set on top tier")
        ax.set_ylim(-2, 102)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    fig.text(0.01, 0.003, "QEMU TCG: all nodes equally fast; times show source overhead.",
             fontsize="x-small")
    fig.tight_layout(rect=(0, 0.015, 1, 1))
    fig.savefig(os.path.join(run_dir, "placement.png"), dpi=90)
    plt.close(fig)
    return True


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--base", default="pristine")
    ap.add_argument("--patched", default="all")
    ap.add_argument("--no-png", action="store_true")
    a = ap.parse_args(argv)
    runs = load(a.run_dir)
    if not runs:
        print(f"aggregate: error: no results under {a.run_dir}/raw/*/out/", file=sys.stderr)
        return 1
    t = Table(runs, a.base, a.patched)
    png_ok = False if a.no_png else write_png(t, a.run_dir)
    write_csv(runs, a.run_dir)
    write_md(t, runs, a.run_dir, png_ok)
    print(f"aggregate: {len(runs)} runs ({len(t.failed)} failed) -> "
          f"{a.run_dir}/results.md, results.csv" + (", placement.png" if png_ok else ""))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
