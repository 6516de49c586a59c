"""MATCH_RECOGNIZE in the plan (Flink's ``StreamPhysicalMatch`` / ``StreamExecMatch``): the
node the SQL front end makes of the clause (``sql/match_recognize.py``), how it runs (keyed by
the PARTITION BY columns, one subtask without them, on the operator of
:mod:`millstream.table.runtime.match_recognize`) and how explain prints it.

The node keeps the clause's explain texts as Flink prints them (``measures=[FINAL(A.id) AS a,
...]``, ``define=[{A=<(PREV(A.$1, 0), 5), ...}]``): the SQL front end renders them when it
compiles the expressions, since only it still knows which pattern variable a value reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.common.config_option import ConfigurationError
from millstream.common.config_options import EXECUTION_TARGET
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.planner.nodes import PlanNode
from millstream.table.runtime.match_recognize import MatchRecognizeFunction, PatternExpression
from millstream.table.runtime.nfa import NFA, PatternElement, SkipStrategy

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["MatchExplain", "MatchRecognize", "match_exec_terms", "match_logical_terms"]


@dataclass(frozen=True)
class MatchExplain:
    """The clause as Flink's explain prints it: ``measures`` (``FINAL(...) AS name``), ``define``
    (``A=<(PREV(A.$1, 0), 5)``), ``pattern`` (Calcite's pattern call), ``after`` in the physical
    plan and the logical one (``SKIP TO NEXT ROW`` / ``FLAG(SKIP TO NEXT ROW)``), ``order``
    (``ts ASC``, and the logical ``4 ASC-nulls-first``), ``interval`` (``10000:INTERVAL
    SECOND``, None without WITHIN), ``anchors`` (the pattern's ``^`` and ``$``)."""

    measures: tuple[str, ...]
    define: tuple[str, ...]
    define_logical: tuple[str, ...]
    pattern: str
    after: str
    after_logical: str
    order: tuple[str, ...]
    order_logical: tuple[str, ...]
    interval: str | None = None
    anchors: tuple[bool, bool] = (False, False)  # the pattern's ^ and $ (Calcite's strict start / end)


@dataclass(frozen=True)
class MatchRecognize(PlanNode):
    """The partition keys and one column per measure of each match of ``elements`` (the
    pattern) among the rows of each partition, in the order of ``time_column`` (a rowtime,
    or with ``by_proctime`` a processing-time attribute) and the further ``sort_keys``."""

    input: PlanNode | None = None
    partition: tuple[int, ...] = ()
    time_column: int = 0
    by_proctime: bool = False
    sort_keys: tuple[tuple[int, bool], ...] = ()
    elements: tuple[PatternElement, ...] = ()
    conditions: dict[str, PatternExpression] = field(default_factory=dict)
    measures: tuple[PatternExpression, ...] = ()
    within: int = 0  # ms, 0: no WITHIN
    skip: SkipStrategy = field(default_factory=SkipStrategy)
    explain: MatchExplain | None = field(default=None, kw_only=True)

    def function(self) -> MatchRecognizeFunction:
        """The operator's function: the automaton of the pattern and the clause's expressions."""
        assert self.input is not None
        source = self.input
        conditions = {v: e.condition for v, e in self.conditions.items()}
        return MatchRecognizeFunction(
            NFA(self.elements, conditions, self.within, self.skip),
            self.time_column,
            source.types[self.time_column].root,
            self.by_proctime,
            self.sort_keys,
            self.partition,
            self.measures,
            source.names[self.time_column],
        )

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        if ctx.env._configuration.get(EXECUTION_TARGET) == "spark":  # the target cannot run it
            raise ConfigurationError(
                "MATCH_RECOGNIZE cannot run on --target spark: Spark SQL has no row pattern "
                "recognition; run the job on millstream's runtime (--target embedded or cluster://...)"
            )
        source, function = self.input, self.function()
        indexes = list(self.partition)
        key_type = BinaryRowKeyType.of([source.types[i] for i in indexes]) if indexes else None
        keyed = source.translate(ctx).key_by(lambda kv: tuple([kv[1][i] for i in indexes]), key_type)
        result = keyed.process(function).name("Match")
        if not indexes:
            result.set_parallelism(1)
        return result


def match_exec_terms(node: MatchRecognize) -> tuple[list[str], str]:
    """The physical plan's terms of ``node`` and the distribution of the Exchange below it."""
    assert node.input is not None and node.explain is not None
    explain, names = node.explain, node.input.names
    keys = [names[i] for i in node.partition]
    terms = [f"partitionBy=[{', '.join(keys)}]"] if keys else []
    terms += [
        f"orderBy=[{', '.join(explain.order)}]",
        f"measures=[{', '.join(explain.measures)}]",
        "rowsPerMatch=[ONE ROW PER MATCH]",
        f"after=[{explain.after}]",
        f"pattern=[{explain.pattern}]",
        f"define=[{{{', '.join(explain.define)}}}]",
    ]
    return terms, f"hash[{', '.join(keys)}]" if keys else "single"


def match_logical_terms(node: MatchRecognize) -> list[str]:
    """``node`` as Calcite's ``LogicalMatch`` prints."""
    assert node.input is not None and node.explain is not None
    explain = node.explain
    terms = [
        f"partition=[[{', '.join(str(i) for i in node.partition)}]]",
        f"order=[[{', '.join(explain.order_logical)}]]",
        f"outputFields=[[{', '.join(node.names)}]]",
        "allRows=[false]",
        f"after=[{explain.after_logical}]",
        f"pattern=[{explain.pattern}]",
        f"isStrictStarts=[{str(explain.anchors[0]).lower()}]",
        f"isStrictEnds=[{str(explain.anchors[1]).lower()}]",
    ]
    if explain.interval is not None:
        terms.append(f"interval=[{explain.interval}]")
    terms += [
        "subsets=[[]]",
        f"patternDefinitions=[[{', '.join(explain.define_logical)}]]",
        f"inputFields=[[{', '.join(node.input.names)}]]",
    ]
    return terms
