"""``Table.explain`` / ``explain_sql`` / ``EXPLAIN ...``: the plan in the three sections Flink
prints.

* ``== Abstract Syntax Tree ==``: the logical plan as the query was written (Calcite's
  ``LogicalProject`` / ``LogicalFilter`` / ``LogicalAggregate`` ... with ``$i`` input
  references and prefix calls, ``>($0, 1)``);
* ``== Optimized Physical Plan ==``: the operators millstream runs, with Flink's names (a
  filter and a projection are one ``Calc``; an ``Exchange`` where rows are repartitioned by
  key or gathered), expressions by column name in prefix form; ``CHANGELOG_MODE`` adds each
  node's ``changelogMode=[I,UB,UA,D]``;
* ``== Optimized Execution Plan ==``: the same operators with infix expressions
  (``(x > 1)``), as Flink's ExecNode plan.

The shape and names follow Flink's; the text is millstream's plan, so it is not Calcite's
output character for character (Flink's optimizer rewrites expressions millstream keeps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.expression import expression as e
from millstream.table.expression.calls import _Tuple
from millstream.table.expression.expression import Expression
from millstream.table.planner import nodes as p
from millstream.table.planner.aggregate import Aggregate
from millstream.table.planner.exec_nodes import ExecNode, over_aggregate, sink_terms, source_name
from millstream.table.planner.explain_expressions import render
from millstream.table.planner.grouping_sets import Expand, expand_terms
from millstream.table.planner.match import MatchRecognize, match_logical_terms
from millstream.table.planner.planning import plan_phases
from millstream.table.planner.sources import FromDataStream
from millstream.table.planner.temporal_joins import (
    DropUpdateBefore,
    LookupJoin,
    TemporalJoin,
    correlate_terms,
)

__all__ = ["explain_plan"]


class _Line:
    def __init__(self, name: str, terms: list[str], node: Any, children: list[Any]) -> None:
        self.name, self.terms, self.node, self.children = name, terms, node, children
        self.reuse_id: int | None = None  # computed once, used again (sub-plan reuse)
        self.mode = "I"  # the changelog mode of its rows


def _lines(node: ExecNode, execution: bool) -> _Line:
    """An exec node tree as lines to print: the physical plan's (prefix expressions) or the
    execution plan's (infix, and which operators run on Arrow)."""
    terms = list(node.execution_terms if execution else node.terms)
    if execution and node.columnar:
        terms.append("columnar=[arrow]")
    if execution and node.reads is not None:
        terms.append(f"read=[{node.reads}]")
    line = _Line(node.name, terms, node.node, [_lines(child, execution) for child in node.inputs])
    line.mode = node.changelog_mode
    return line


def _logical_aggregate(
    node: Any, names: list[str], ref: Callable[[str], str], children: list[_Line]
) -> _Line:
    """Calcite's aggregate: a LogicalProject of the group keys then the calls' arguments
    below it, the group ``{0, 1 ...}`` and each call over ``$i`` of that projection."""
    keys = node.key_expressions or []
    items: list[tuple[str, str]] = []  # (name, rendered expression) of the projection

    def position(expression: Any) -> int:
        text = render(expression, ref, False)
        for i, (_, seen) in enumerate(items):
            if seen == text:
                return i
        name = expression.name if type(expression) is e._Column else f"$f{len(items)}"
        items.append((name, text))
        return len(items) - 1

    group = [position(k) for k in keys]
    calls = []
    for (fn, _, _), argument, name in zip(
        node.calls, node.argument_expressions or [None] * len(node.calls), names[len(keys) :], strict=True
    ):
        label = fn if isinstance(fn, str) else type(fn).__name__
        if argument is None or (type(argument) is e._Literal and label == "COUNT"):
            calls.append((name, f"{label}()"))
        elif type(argument) is _Tuple:
            calls.append((name, f"{label}({', '.join(f'${position(a)}' for a in argument.items)})"))
        else:
            calls.append((name, f"{label}(${position(argument)})"))
    project = _Line("LogicalProject", [f"{n}=[{t}]" for n, t in items], None, children)
    terms = [f"group=[{{{', '.join(map(str, group))}}}]", *[f"{n}=[{c}]" for n, c in calls]]
    return _Line("LogicalAggregate", terms, node, [project])


def _logical(node: Any) -> _Line:
    """``node`` as Calcite's logical node, with ``$i`` references to its input's columns."""
    below = node.plan_inputs()
    inputs = list(below[0].names) if below else []

    def ref(name: str) -> str:
        return f"${inputs.index(name)}" if name in inputs else name

    if isinstance(node, DropUpdateBefore):  # a physical node: the tree as written has none
        return _logical(node.input)
    if isinstance(node, (TemporalJoin, LookupJoin)):
        return _logical_correlate(node)
    merged = over_aggregate(node)
    if merged is not None:  # Calcite's aggregate names its calls as the select list does
        line = _logical(node.input)
        renamed = iter(n for x, n in merged if type(x).__name__ != "_Column")
        line.terms = line.terms[:1] + [
            f"{next(renamed, t.split('=', 1)[0])}={t.split('=', 1)[1]}" for t in line.terms[1:]
        ]
        return line
    children = [_logical(c) for c in below]
    names = list(node.names)
    if isinstance(node, p.Project) and node.expressions is not None:
        terms = [f"{n}=[{render(x, ref, False)}]" for x, n in zip(node.expressions, names, strict=True)]
        return _Line("LogicalProject", terms, node, children)
    if isinstance(node, p.Filter) and node.expression is not None:
        return _Line("LogicalFilter", [f"condition=[{render(node.expression, ref, False)}]"], node, children)
    if isinstance(node, Aggregate):
        return _logical_aggregate(node, names, ref, children)
    if isinstance(node, MatchRecognize):
        return _Line("LogicalMatch", match_logical_terms(node), node, children)
    if isinstance(node, (p.Values, FromDataStream, p.SourceScan)):
        return _Line("LogicalTableScan", [f"table=[{source_name(node)}]"], node, [])
    if isinstance(node, p.Sort):
        return _Line(
            "LogicalSort", [f"fetch=[{node.fetch}]"] if node.fetch is not None else [], node, children
        )
    if isinstance(node, p.Sink):
        return _Line("LogicalSink", sink_terms(node), node, children)
    return _logical_other(node, names, children)


def _logical_correlate(node: TemporalJoin | LookupJoin) -> _Line:
    """A temporal or lookup join as Calcite's tree has it: the left input correlated with a
    filter over a snapshot of the right table ``FOR SYSTEM_TIME AS OF`` the left's time."""
    terms, condition, period = correlate_terms(node)
    if isinstance(node, TemporalJoin):
        assert node.left is not None and node.right is not None
        left, right = _logical(node.left), _logical(node.right)
    else:
        assert node.input is not None and node.table is not None
        table = f"[{node.table.path.replace('.', ', ')}]"
        left, right = _logical(node.input), _Line("LogicalTableScan", [f"table=[{table}]"], None, [])
    snapshot = _Line("LogicalSnapshot", [f"period=[{period}]"], None, [right])
    filtered = _Line("LogicalFilter", [f"condition=[{condition}]"], None, [snapshot])
    return _Line("LogicalCorrelate", terms, node, [left, filtered])


def _logical_other(node: Any, names: list[str], children: list[_Line]) -> _Line:
    """The logical line of an Expand, a watermark assigner, a join or any other node."""
    kind = type(node).__name__
    if isinstance(node, Expand):
        return _Line("LogicalExpand", expand_terms(node), node, children)
    if kind == "WatermarkAssigner":
        watermark = f"watermark=[{node.watermark_sql}]" if node.watermark_sql else "watermark=[]"
        return _Line(
            "LogicalWatermarkAssigner", [f"rowtime=[{names[node.rowtime]}]", watermark], node, children
        )
    if kind in ("Join", "WindowJoin", "IntervalJoin") and isinstance(node.condition, Expression):
        joined = list(node.left.names) + list(node.right.names)  # $i over both inputs' columns
        condition = render(node.condition, lambda n: f"${joined.index(n)}" if n in joined else n, False)
        terms = [f"condition=[{condition}]", f"joinType=[{node.join_type.lower()}]"]
        return _Line("LogicalJoin", terms, node, children)
    return _Line(f"Logical{kind}", [f"fields=[{', '.join(names)}]"], node, children)


def _tree(root: _Line, changelog: bool) -> str:
    lines: list[str] = []

    def walk(line: _Line, prefix: str, child_prefix: str) -> None:
        terms = list(line.terms)
        mode = line.mode
        if changelog:
            terms.append(f"changelogMode=[{mode}]")
        reused = f"(reuse_id=[{line.reuse_id}])" if line.reuse_id is not None else ""
        shown = f"{line.name}({', '.join(terms)})" if terms else line.name  # DropUpdateBefore
        lines.append(f"{prefix}{shown}{reused}")
        for i, child in enumerate(line.children):
            last = i == len(line.children) - 1
            walk(child, child_prefix + ("+- " if last else ":- "), child_prefix + ("   " if last else ":  "))

    walk(root, "", "")
    return "\n".join(lines)


def _mark_reuse(line: _Line, reuse: Any, seen: dict[Any, _Line], ids: list[int], owner: Any = None) -> None:
    """Print a sub-plan the translation computes once (``planner/reuse.py``) once: its first line
    ends ``(reuse_id=[n])``, each later use is a ``Reused(reference_id=[n])`` line, as Flink
    prints them (Flink marks the Exchange above when the shuffle is shared too; here each
    consumer repartitions the shared operator's output, so the operator is marked).
    ``owner``: the node of the nearest line above that is not an Exchange."""
    if line.name != "Exchange":
        owner = line.node
    for index, child in enumerate(line.children):
        # a node's topmost line (a two-phase aggregation prints several; an Exchange line
        # carries its input's node but is not shared: each consumer repartitions)
        operator = child.node is not None and child.name != "Exchange" and child.node is not owner
        key = reuse.key(child.node) if operator else None
        first = seen.get(key) if key is not None else None
        if first is None:
            if key is not None:
                seen[key] = child
            _mark_reuse(child, reuse, seen, ids, owner)
            continue
        if first.reuse_id is None:
            ids[0] += 1
            first.reuse_id = ids[0]
        line.children[index] = _Line("Reused", [f"reference_id=[{first.reuse_id}]"], child.node, [])


def explain_plan(plan: Any, config: Any, changelog_mode: bool) -> str:
    """The three sections of Flink's explain output for ``plan`` as the options in ``config``
    (a TableConfig) plan it, through the same phases as a run (``planner/planning.py``):

    * the abstract syntax tree: ``plan`` as written;
    * the optimized physical plan: the exec nodes of the physical phase (``planner/exec_nodes.py``),
      with each one's changelog mode when ``changelog_mode``;
    * the optimized execution plan: the same exec nodes with infix expressions; those that
      run on Arrow batches say ``columnar=[arrow]``, a columnar scan the columns (and ROW
      fields) it reads. A part computed once for two consumers (sub-plan reuse) is printed
      once, marked ``(reuse_id=[n])``, and as ``Reused(reference_id=[n])`` where it is used
      again, as Flink prints it.
    """
    [_], reuse, physical = plan_phases([plan], config)
    [root] = physical.roots
    execution = _lines(root, execution=True)
    if reuse is not None:
        _mark_reuse(execution, reuse, {}, [0])
    return (
        f"== Abstract Syntax Tree ==\n{_tree(_logical(plan), False)}\n\n"
        f"== Optimized Physical Plan ==\n{_tree(_lines(root, execution=False), changelog_mode)}\n\n"
        f"== Optimized Execution Plan ==\n{_tree(execution, False)}\n"
    )
