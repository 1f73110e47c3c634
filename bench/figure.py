"""The one output line of a figure, for the Python parts of the bench/ scripts; bench/lib.sh's
`figure` (shell) runs this file, and benches/lib.rs prints the same line from `cargo bench`.

    figure BENCH METRIC VALUE UNIT [BASELINE BASELINE_VALUE] [GOAL]

prints, tab-separated: `bench`, the benchmark, the metric, its value and unit, the baseline
measured in the same run (name and value; empty without one), the ratio value / baseline, the
goal. bench/all.sh collects these lines (and nothing else) into its table and JSON.
"""
import sys


def number(v):
    s = f"{float(v):.3f}".rstrip("0").rstrip(".")
    return s


def line(bench, metric, value, unit, baseline=None, base_value=None, goal=""):
    # The shell passes "" for a figure without a baseline.
    if baseline in (None, "") or base_value in (None, ""):
        baseline, base_value = None, None
    ratio = ""
    if baseline is not None and base_value is not None and float(base_value) != 0:
        ratio = f"{float(value) / float(base_value):.3f}"
    base = number(base_value) if base_value is not None else ""
    return "\t".join(["bench", bench, metric, number(value), unit, baseline or "", base, ratio, goal])


def figure(*args, **kw):
    print(line(*args, **kw), flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) not in (4, 5, 6, 7):
        sys.exit("usage: figure BENCH METRIC VALUE UNIT [BASELINE BASELINE_VALUE] [GOAL]")
    if len(a) >= 6:
        figure(a[0], a[1], a[2], a[3], a[4], a[5], a[6] if len(a) == 7 else "")
    else:
        figure(a[0], a[1], a[2], a[3], goal=a[4] if len(a) == 5 else "")
