"""Where the hot requests' time went: a summary of ``W40K_LATENCY_TRACE`` dumps
(``app.core.latency``; ``bench_tournament.py --trace DIR`` writes and reads them).

``python bench/latency_report.py DIR/latency.*.tsv`` prints, for each hot kind (``command``:
the writes, ``get``: the refreshes), the mean, p50, p95 and max of each stage of a request in
the server, and the mean of each stage over the slowest 5 % (what the p95 is made of); then the
event loop's lag per worker (how late a 10 ms timer fired: the loop's own queue) and the
garbage collections' pauses by generation.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

# (label, from mark, to mark): each stage of a request, seconds after its arrival in the gate
STAGES = (
    ("admission queue", "arrived", "admitted"),
    ("loop: middleware, body", "admitted", "submitted"),
    ("thread-pool queue", "submitted", "started"),
    ("on the thread", "started", "finished"),
    ("  of which database", None, "db"),
    ("    of which commit", None, "commit"),
    ("    statements (count)", None, "statements"),
    ("  of which thread CPU", None, "cpu"),
    ("  of which other (GIL)", None, "gil"),
    ("back to the loop", "finished", "resumed"),
    ("answer sent", "resumed", "sent"),
    ("total in the app", "arrived", "sent"),
)

COUNTS = {"statements"}  # marks that count things rather than time them


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


Records = dict[str, list[dict[str, float]]]  # by kind: each request's marks
Collections = dict[int, list[tuple[float, float]]]  # by generation: (pause, CPU) seconds


def load(paths: list[Path]) -> tuple[Records, dict[str, list[float]], Collections]:
    records: Records = defaultdict(list)
    lags: dict[str, list[float]] = defaultdict(list)
    collections: Collections = defaultdict(list)
    for path in paths:
        lines = path.read_text().splitlines()
        header = lines[0].split("\t")
        for line in lines[1:]:
            cells = line.split("\t")
            if cells[0] == "lag":
                lags[path.name.split(".")[1]].append(float(cells[2]))
                continue
            if cells[0] == "gc":
                collections[int(cells[1])].append((float(cells[2]), float(cells[3])))
                continue
            row = dict(zip(header, cells, strict=True))
            if row["status"] != "200" or row["kind"] not in ("command", "get"):
                continue
            marks = {k: float(v) for k, v in row.items() if k not in ("kind", "status") and v}
            marks["arrived"] = 0.0
            if "finished" in marks and "started" in marks:
                trip = marks["finished"] - marks["started"]
                marks["gil"] = max(0.0, trip - marks.get("db", 0.0) - marks.get("cpu", 0.0))
            records[row["kind"]].append(marks)
    return records, lags, collections


def stage(marks: dict[str, float], start: str | None, end: str) -> float | None:
    if end not in marks or (start is not None and start not in marks):
        return None
    return marks[end] - (marks[start] if start is not None else 0.0)


def report(paths: list[Path]) -> str:
    records, lags, collections = load(paths)
    out: list[str] = []
    for kind in ("command", "get"):
        found = records.get(kind, [])
        if not found:
            continue
        slow_cut = _pct([m["sent"] for m in found], 0.95)
        slow = [m for m in found if m["sent"] >= slow_cut]
        out.append(
            f"{kind}: {len(found)} answered 200 (ms; 'slowest': mean over the slowest 5 %, "
            f"total >= {slow_cut * 1000:.1f} ms)"
        )
        out.append(f"  {'stage':<26}{'mean':>8}{'p50':>8}{'p95':>8}{'max':>8}{'slowest':>9}")
        for label, start, end in STAGES:
            values = [v for m in found if (v := stage(m, start, end)) is not None]
            tail = [v for m in slow if (v := stage(m, start, end)) is not None]
            if not values:
                continue
            mean = sum(values) / len(values)
            tail_mean = sum(tail) / len(tail) if tail else float("nan")
            unit = 1 if end in COUNTS else 1000  # a count as it is, a time in ms
            out.append(
                f"  {label:<26}{mean * unit:>8.2f}{_pct(values, 0.5) * unit:>8.2f}"
                f"{_pct(values, 0.95) * unit:>8.2f}{max(values) * unit:>8.2f}"
                f"{tail_mean * unit:>9.2f}"
            )
    for pid, values in sorted(lags.items()):
        out.append(
            f"event loop lag, worker {pid}: {len(values)} ticks, p50 {_pct(values, 0.5) * 1000:.2f}"
            f" p95 {_pct(values, 0.95) * 1000:.2f} p99 {_pct(values, 0.99) * 1000:.2f} max "
            f"{max(values) * 1000:.2f} ms"
        )
    for generation, found in sorted(collections.items()):
        pauses, cpus = [p for p, _ in found], [c for _, c in found]
        out.append(
            f"garbage collections, generation {generation}: {len(found)}, pause p50 "
            f"{_pct(pauses, 0.5) * 1000:.2f} max {max(pauses) * 1000:.2f} ms, CPU p50 "
            f"{_pct(cpus, 0.5) * 1000:.2f} max {max(cpus) * 1000:.2f} ms"
        )
    return "\n".join(out)


if __name__ == "__main__":
    print(report([Path(p) for p in sys.argv[1:]]))
