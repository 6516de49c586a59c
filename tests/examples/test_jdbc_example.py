"""examples/jdbc_orders.py (issue 49, JDBC): orders written by PyFlink's JdbcSink, read back
by a partitioned JDBC scan, joined with a JDBC lookup table and upserted per country, on a
SQLite file; the revenue it prints is the orders' own sum per country."""

from __future__ import annotations

import collections
import decimal
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)

COUNTRIES = ["PT", "SE", "CN", "SE", "PT"]  # of customers 1..5


def test_jdbc_orders_example_prints_the_revenue_per_country(tmp_path: Path) -> None:
    database = tmp_path / "shop.db"
    result = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "examples", "jdbc_orders.py"),
            "--orders",
            "300",
            "--database",
            str(database),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    totals: dict[str, int] = collections.Counter()
    counts: dict[str, int] = collections.Counter()
    for i in range(1, 301):
        country = COUNTRIES[i % 5]
        totals[country] += (i * 37) % 1000 + 100
        counts[country] += 1
    expected = [
        f"{c}: {decimal.Decimal(totals[c]) / 100:.2f} from {counts[c]} orders" for c in sorted(totals)
    ]
    assert result.stdout.splitlines() == expected
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT COUNT(*) FROM orders").fetchone() == (300,)
        assert sorted(db.execute("SELECT country, orders FROM revenue").fetchall()) == sorted(counts.items())
