"""Which ``WATERMARK FOR`` expressions are a bounded out-of-orderness (``rowtime - INTERVAL d``):
those a runtime with its own watermark (Spark's ``withWatermark``) can express."""

from __future__ import annotations

import pytest

from millstream.table.sql.expressions import watermark_delay_ms


@pytest.mark.parametrize(
    ("expression", "delay"),
    [
        ("ts - INTERVAL '5' SECOND", 5000),
        ("`ts` - INTERVAL '1' MINUTE", 60_000),
        ("TS - INTERVAL '0.25' SECOND", 250),
        ("ts", 0),
        ("ts - INTERVAL '5' SECOND - INTERVAL '1' SECOND", None),
        ("other - INTERVAL '5' SECOND", None),
        ("CAST(ts AS TIMESTAMP(3))", None),
        ("ts + INTERVAL '5' SECOND", None),
    ],
)
def test_bounded_watermark_expressions_give_their_delay(expression: str, delay: int | None) -> None:
    assert watermark_delay_ms(expression, "ts") == delay
