"""Plots of the benchmark figures for the documentation (matplotlib, PNG).

Reads what the benchmarks wrote with ``--json`` into ``docs/benchmarks/``:

* ``word_count.json`` (``benchmarks/word_count.py --json``): words/second of millstream at
  each parallelism against the Counter floor, the same functions in a hand-written loop and
  (BATCH) a hand-written PySpark RDD word count;
* ``nexmark_sql.json`` (``benchmarks/nexmark_sql.py --pyflink VENV --json``): the
  whole-process seconds of millstream, PyFlink 2.3 and DuckDB per query at p1, one panel per
  DDL shape (nested ROWs, flat), with the ratio PyFlink / millstream; the nested shape's p1
  and p2 runs, when the file holds both, give the scaling plot;

and writes ``docs/images/bench-word-count.png``, ``bench-nexmark.png`` and
``bench-scaling.png``. ``scripts/docs.sh`` runs it before building the site.

    python benchmarks/plot.py [--data docs/benchmarks] [--out docs/images]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _figure(width: float, height: float, rows: int = 1) -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display
    import matplotlib.pyplot as plt

    return plt.subplots(rows, 1, figsize=(width, height), dpi=110)


def _bars(ax: Any, groups: list[str], series: dict[str, list[float | None]]) -> None:
    """Grouped bars: one group per label, one bar per series (a missing value leaves a gap)."""
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        present = [(x, v) for x, v in zip(xs, values, strict=True) if v is not None]
        ax.bar([x for x, _ in present], [v for _, v in present], width, label=name)
    ax.set_xticks(range(len(groups)), groups)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)


def word_count(data: dict[str, Any], out: Path) -> None:
    """Words/second per mode: floor, hand-written loop, millstream p1 / p2, PySpark."""
    rows = [r for r in data["results"] if r["shape"] == "sum"]
    modes = sorted({r["mode"] for r in rows}, reverse=True)
    parallelisms = sorted({r["parallelism"] for r in rows})

    def value(mode: str, key: str, p: int | None = None) -> float | None:
        for r in rows:
            if r["mode"] == mode and (p is None or r["parallelism"] == p):
                return float(r[key]) / 1e6 if r[key] is not None else None
        return None

    series: dict[str, list[float | None]] = {
        "floor (collections.Counter)": [value(m, "floor") for m in modes],
        "same functions, hand-written loop": [value(m, "hand_written") for m in modes],
    }
    for p in parallelisms:
        series[f"millstream p={p}"] = [value(m, "millstream", p) for m in modes]
    series["PySpark RDD, local[2]"] = [value(m, "pyspark", parallelisms[-1]) for m in modes]
    fig, ax = _figure(7.5, 4.4)
    _bars(ax, modes, series)
    ax.set_ylabel("million words / second")
    ax.set_title(f"Word count, {data['lines']:,} lines (Zipf words)")
    fig.tight_layout()
    fig.savefig(out / "bench-word-count.png")


def nexmark(data: dict[str, Any], out: Path) -> None:
    """Whole-process seconds per Nexmark query at p1, one panel per DDL shape: millstream,
    PyFlink 2.3 and DuckDB (log scale), each query's ratio PyFlink / millstream above it."""
    results = [r for r in data["results"] if r["parallelism"] == 1]
    shapes = list(dict.fromkeys(r.get("shape", "nested") for r in results))
    fig, axes = _figure(8.5, 3.6 * len(shapes), rows=len(shapes))
    for ax, shape in zip(axes if len(shapes) > 1 else [axes], shapes, strict=True):
        rows = [r for r in results if r.get("shape", "nested") == shape]
        queries = [r["query"] for r in rows]
        series: dict[str, list[float | None]] = {
            "millstream": [r.get("millstream_s") for r in rows],
            f"PyFlink {data.get('pyflink') or ''}".strip(): [r.get("pyflink_s") for r in rows],
            "DuckDB (load + query)": [r.get("duckdb_s") for r in rows],
        }
        _bars(ax, queries, series)
        ax.set_yscale("log")
        ax.set_ylabel("seconds, whole process (log)")
        for x, r in enumerate(rows):
            ratio = r.get("pyflink_over_millstream")
            if ratio is not None:
                top = max(v for v in (r.get("millstream_s"), r.get("pyflink_s")) if v is not None)
                ax.annotate(f"{ratio:.1f}x", (x, top), ha="center", va="bottom", fontsize=7)
        ax.set_title(f"{shape} DDL: PyFlink / millstream above each query", fontsize=9)
    events = f"{data['events']:,}"
    fig.suptitle(f"Nexmark SQL, {events} events from one JSON-lines file, parallelism 1")
    fig.tight_layout()
    fig.savefig(out / "bench-nexmark.png")


def scaling(word_count_data: dict[str, Any], nexmark_data: dict[str, Any], out: Path) -> None:
    """Speed-up from parallelism 1 to 2 (two TaskManager processes on two cores)."""
    labels, speedups = [], []
    for mode in sorted({r["mode"] for r in word_count_data["results"]}, reverse=True):
        rows = [r for r in word_count_data["results"] if r["mode"] == mode and r["shape"] == "sum"]
        by_p = {r["parallelism"]: r["millstream"] for r in rows}
        if 1 in by_p and 2 in by_p:
            labels.append(f"words\n{mode.lower()}")
            speedups.append(by_p[2] / by_p[1])
    nested = [r for r in nexmark_data["results"] if r.get("shape", "nested") == "nested"]
    for query in dict.fromkeys(r["query"] for r in nested):
        by_p = {r["parallelism"]: r["sql"] for r in nested if r["query"] == query and r["sql"]}
        if 1 in by_p and 2 in by_p:
            labels.append(query)
            speedups.append(by_p[2] / by_p[1])
    fig, ax = _figure(8.5, 3.4)
    ax.bar(range(len(labels)), speedups, color="tab:green")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.axhline(2.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylabel("speed at p=2 / speed at p=1")
    ax.set_title("Scaling from one to two TaskManager processes (2 cores; dashed: linear)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "bench-scaling.png")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default=str(ROOT / "docs" / "benchmarks"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"))
    args = parser.parse_args(argv)
    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    words = json.loads((data / "word_count.json").read_text())
    events = json.loads((data / "nexmark_sql.json").read_text())
    word_count(words, out)
    nexmark(events, out)
    scaling(words, events, out)
    print(f"wrote bench-word-count.png, bench-nexmark.png, bench-scaling.png to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
