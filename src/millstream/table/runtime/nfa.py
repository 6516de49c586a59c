"""The automaton of MATCH_RECOGNIZE (Flink's CEP ``NFA``): a pattern of quantified variables
compiled into states and transitions, and the runs through them, event by event.

Per-record code: ``NFA.process`` runs once per event of a partition, in event-time order.

::

    PATTERN (A B+ C)        compiled backwards from the final state, as Flink's NFACompiler:

    A ──TAKE──► B ──TAKE──► B:loop ──PROCEED──► C ──TAKE──► $endState$
                              └──TAKE──┘ (itself)

Every element follows the one before it strictly (Flink's ``next`` with ``consecutive``
quantifiers): a transition TAKEs the event into its source state's variable, or PROCEEDs
without consuming it (an epsilon move, taken when its condition holds for the event). A
greedy quantifier adds ``NOT take`` to the transitions of the state after it, so a row its
variable can take is never taken by the next one instead.

A run (``Run``) is one partial match: its state, the events taken so far with their
variables, and the event that started it (its ``start_id``: time, then arrival order at that
time). The runs wait in a priority queue ordered by their start; a run that reaches the final
state is a completed match, emitted once no unfinished run started before it (so matches come
out in the order they started), and the AFTER MATCH SKIP strategy then discards the runs and
completed matches that started too early (``SkipStrategy``). The queues keep the order of
``java.util.PriorityQueue`` (``JavaQueue``), so ties break as on Flink.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "END_STATE",
    "NFA",
    "JavaQueue",
    "MalformedPatternError",
    "NFAState",
    "PatternElement",
    "Run",
    "SkipStrategy",
    "can_produce_empty_matches",
    "compile_nfa",
    "matched_events",
    "pattern_element",
]

END_STATE = "$endState$"
TAKE, PROCEED = "TAKE", "PROCEED"
_MAX = 2**63 - 1


class MalformedPatternError(ValueError):
    """A pattern Flink's CEP library refuses (the message is Flink's)."""


# -- the pattern ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PatternElement:
    """One variable of the pattern with its quantifier, as Flink's ``Pattern`` holds it:
    ``kind`` SINGLE (``A``, ``A?``), LOOPING (``A+``, ``A*``, ``A{n,}``: ``times`` is
    ``(n, n)``, the loop after the n-th) or TIMES (``A{n}``, ``A{n,m}``)."""

    variable: str
    kind: str = "SINGLE"
    times: tuple[int, int] = (1, 1)
    optional: bool = False
    greedy: bool = False


def pattern_element(
    variable: str, start: int, end: int, reluctant: bool, previous: PatternElement | None
) -> PatternElement:
    """The element of ``variable`` quantified ``{start, end}`` (``end`` -1: no upper bound; a
    quantifier ``{, m}`` starts at -1), as Flink's planner applies a quantifier to a CEP
    pattern (``CommonExecMatch.applyQuantifier``) and the CEP library checks it.

    Raises:
        MalformedPatternError: with Flink's message (a reluctant ``?``, an optional variable
            after a greedy one, bounds the pattern API refuses).
    """
    greedy = not reluctant
    optional = start == 0 and end == 1
    if start == 0 and end == -1:  # A*: oneOrMore().optional()
        _optional_after(previous)
        return PatternElement(variable, "LOOPING", (1, 1), True, greedy)
    if start == 1 and end == -1:  # A+
        return PatternElement(variable, "LOOPING", (1, 1), False, greedy)
    if optional:  # A?
        _optional_after(previous)
        if reluctant:
            raise MalformedPatternError("Reluctant optional variables are not supported yet.")
        return PatternElement(variable, "SINGLE", (1, 1), True, False)
    if end != -1:  # A{n}, A{n,m}: times(n, m), optional when n is 0
        low = 1 if start == 0 else start
        _check_times(low, end)
        return PatternElement(variable, "TIMES", (low, end), start == 0, greedy and start != end)
    _check_times(start, start)  # A{n,}: timesOrMore(n)
    return PatternElement(variable, "LOOPING", (start, start), False, greedy)


def _optional_after(previous: PatternElement | None) -> None:
    if previous is not None and previous.greedy:
        raise MalformedPatternError("Optional pattern cannot be preceded by greedy pattern")


def _check_times(low: int, high: int) -> None:
    if low <= 0:
        raise MalformedPatternError("The from should be a positive number greater than 0.")
    if low > high:
        raise MalformedPatternError(f"The to should be a number greater than or equal to from: {low}.")


# -- conditions and states -----------------------------------------------------------------------------

# a transition's condition: ("TRUE",), ("VAR", v): v's DEFINE condition, ("AND", a, b), ("NOT", a)
Condition = tuple[Any, ...]
_TRUE: Condition = ("TRUE",)


@dataclass
class State:
    """A state of the automaton: its transitions ``[action, target state, condition]`` in the
    order Flink's compiler adds them (that order decides the order of the runs made)."""

    name: str
    variable: str
    kind: str = "NORMAL"  # START, NORMAL or FINAL
    transitions: list[list[Any]] = field(default_factory=list)


class _Compiler:
    """Flink's ``NFACompiler`` for patterns of strict contiguity (no IGNORE transitions, no
    NOT patterns): from the last element to the first, each converted in front of the
    states after it."""

    def __init__(self) -> None:
        self.states: dict[str, State] = {}

    def state(self, variable: str, kind: str = "NORMAL") -> State:
        name, n = variable, 0
        while name in self.states:  # Flink's unique internal names: B, B:0, B:1 ...
            name = f"{variable}:{n}"
            n += 1
        created = State(name, variable, kind)
        self.states[name] = created
        return created

    def convert(self, element: PatternElement, sink: State) -> State:
        take: Condition = ("VAR", element.variable)
        if element.kind == "LOOPING":
            looping = self.state(element.variable)
            looping.transitions.append([PROCEED, sink.name, _TRUE])
            if element.greedy:
                _greedy(sink, take)
            looping.transitions.append([TAKE, looping.name, take])
            return self.times(element, looping, sink, element.times)
        if element.kind == "TIMES":
            if element.greedy and element.times[0] != element.times[1]:
                _greedy(sink, take)
            return self.times(element, sink, sink, element.times)
        return self.single(element, sink, sink, element.optional)

    def times(self, element: PatternElement, sink: State, proceed: State, times: tuple[int, int]) -> State:
        last = sink
        for _ in range(times[0], times[1]):
            last = self.single(element, last, proceed, True)
        for _ in range(times[0] - 1):
            last = self.single(element, last, None, False)
        return self.single(element, last, proceed, element.optional)

    def single(self, element: PatternElement, sink: State, proceed: State | None, optional: bool) -> State:
        state = self.state(element.variable)
        state.transitions.append([TAKE, sink.name, ("VAR", element.variable)])
        if optional and proceed is not None:
            state.transitions.append([PROCEED, proceed.name, _TRUE])
        return state


def _greedy(state: State, take: Condition) -> None:
    """Flink's ``updateWithGreedyCondition``: the state after a greedy quantifier moves on only
    for an event the quantifier's variable does not take."""
    for transition in state.transitions:
        transition[2] = ("AND", transition[2], ("NOT", take))


def compile_nfa(elements: Sequence[PatternElement]) -> tuple[dict[str, State], str]:
    """The states of ``elements`` (the pattern in order) and the name of the start state."""
    compiler = _Compiler()
    sink = compiler.state(END_STATE, "FINAL")
    for element in reversed(elements[1:]):
        sink = compiler.convert(element, sink)
    start = compiler.convert(elements[0], sink)
    start.kind = "START"
    return compiler.states, start.name


def can_produce_empty_matches(states: Mapping[str, State], start: str) -> bool:
    """Whether the final state is reachable from the start by PROCEED transitions alone (a
    pattern of optional variables only), as Flink's ``NFACompiler.canProduceEmptyMatches``."""
    stack = [states[start]]
    while stack:
        for action, target, _ in stack.pop().transitions:
            if action == PROCEED:
                if states[target].kind == "FINAL":
                    return True
                stack.append(states[target])
    return False


# -- runs and the queues they wait in -------------------------------------------------------------------

EventId = tuple[int, int]  # (timestamp, arrival order among the events taken at that timestamp)


class Run(NamedTuple):
    """A partial (or, in the final state, completed) match: ``path`` the events taken, each
    ``(variable, event id, row)`` in order; ``start_id`` None for the run waiting in the start
    state for a first event."""

    state: str
    path: tuple[tuple[str, EventId, Any], ...]
    start_time: int
    start_id: EventId | None


def _order(run: Run) -> tuple[int, int]:
    """Flink's ``COMPUTATION_STATE_COMPARATOR``: by the event the run started with; the run in
    the start state last."""
    return run.start_id if run.start_id is not None else (_MAX, _MAX)


class JavaQueue:
    """A binary heap ordered as ``java.util.PriorityQueue`` orders it (the same sift steps),
    so that iteration (the array's order) and the order of equal elements are Flink's.
    ``items`` is the array; a queue is stored and restored as it."""

    __slots__ = ("items",)

    def __init__(self, items: list[Run] | None = None) -> None:
        self.items: list[Run] = items if items is not None else []

    def __iter__(self) -> Iterator[Run]:
        return iter(list(self.items))

    def __len__(self) -> int:
        return len(self.items)

    def offer(self, run: Run) -> None:
        items = self.items
        items.append(run)
        k, key = len(items) - 1, _order(run)
        while k > 0:
            parent = (k - 1) >> 1
            if key >= _order(items[parent]):
                break
            items[k] = items[parent]
            k = parent
        items[k] = run

    def peek(self) -> Run | None:
        return self.items[0] if self.items else None

    def poll(self) -> Run | None:
        items = self.items
        if not items:
            return None
        result, last = items[0], items.pop()
        if items:
            self._sift_down(0, last, len(items))
        return result

    def _sift_down(self, k: int, run: Run, n: int) -> None:
        items, key, half = self.items, _order(run), n >> 1
        while k < half:
            child = 2 * k + 1
            right = child + 1
            if right < n and _order(items[child]) > _order(items[right]):
                child = right
            if key <= _order(items[child]):
                break
            items[k] = items[child]
            k = child
        items[k] = run

    def remove_where(self, doomed: Callable[[Run], bool]) -> None:
        """Java's ``removeAll``: the survivors kept in array order, then the heap rebuilt."""
        survivors = [r for r in self.items if not doomed(r)]
        if len(survivors) == len(self.items):
            return
        self.items = survivors
        for k in range((len(survivors) >> 1) - 1, -1, -1):
            self._sift_down(k, survivors[k], len(survivors))


@dataclass
class NFAState:
    """One partition's matching state (Flink's ``NFAState`` and the event counters of its
    ``SharedBuffer``): the runs, the completed matches not emitted yet, and per timestamp how
    many events were taken at it (their ids)."""

    partial: JavaQueue
    completed: JavaQueue
    counts: dict[int, int] = field(default_factory=dict)

    def snapshot(self) -> tuple[list[Run], list[Run], dict[int, int]]:
        return list(self.partial.items), list(self.completed.items), dict(self.counts)

    @classmethod
    def restore(cls, data: tuple[list[Run], list[Run], dict[int, int]]) -> NFAState:
        partial, completed, counts = data
        return cls(JavaQueue(list(partial)), JavaQueue(list(completed)), dict(counts))


# -- after match -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkipStrategy:
    """AFTER MATCH SKIP: ``kind`` PAST LAST ROW, TO NEXT ROW, TO FIRST or TO LAST
    ``variable``. After a match is emitted, the runs and completed matches that started before
    the event it names are discarded (TO FIRST / LAST: strictly before; the others: up to it)."""

    kind: str = "PAST LAST ROW"
    variable: str | None = None

    def pruning_id(self, path: Sequence[tuple[str, EventId, Any]]) -> EventId:
        ids = [event for _, event, _ in path]
        if self.kind == "PAST LAST ROW":
            return max(ids)
        if self.kind == "TO NEXT ROW":
            return min(ids)
        mapped = [event for variable, event, _ in path if variable == self.variable]
        if not mapped:
            raise MalformedPatternError(
                f"Could not skip to {self.variable}. No such element in the found match {_match_text(path)}"
            )
        pruning = mapped[0] if self.kind == "TO FIRST" else mapped[-1]
        if pruning == min(ids):
            raise MalformedPatternError("Could not skip to first element of a match.")
        return pruning

    def doomed(self, pruning: EventId) -> Callable[[Run], bool]:
        """Whether a run (or completed match) goes once a match prunes at ``pruning``."""
        strict = self.kind in ("TO FIRST", "TO LAST")

        def doomed(run: Run) -> bool:
            start = run.start_id
            return start is not None and (start < pruning if strict else start <= pruning)

        return doomed


def _match_text(path: Sequence[tuple[str, EventId, Any]]) -> str:
    grouped: dict[str, list[str]] = {}
    for variable, (time, number), _ in path:
        grouped.setdefault(variable, []).append(f"EventId{{id={number}, timestamp={time}}}")
    return "{" + ", ".join(f"{v}=[{', '.join(ids)}]" for v, ids in grouped.items()) + "}"


# -- the automaton ---------------------------------------------------------------------------------------

# a DEFINE condition: (events of the partial match by variable, the event, its time) -> True to take it
DefineCondition = Callable[[Mapping[str, list[Any]], Any, int], bool]


class NFA:
    """The compiled pattern, with its DEFINE conditions (by variable; a variable without one
    takes every event), WITHIN (ms, 0: none) and AFTER MATCH SKIP strategy."""

    def __init__(
        self,
        elements: Sequence[PatternElement],
        conditions: Mapping[str, DefineCondition],
        window: int,
        skip: SkipStrategy,
    ) -> None:
        self.states, self.start = compile_nfa(elements)
        self.conditions, self.window, self.skip = dict(conditions), window, skip

    def initial_state(self) -> NFAState:
        return NFAState(JavaQueue([Run(self.start, (), -1, None)]), JavaQueue())

    def advance_time(self, state: NFAState, timestamp: int) -> None:
        """No event before ``timestamp`` comes any more: runs older than WITHIN are dropped
        (a run that has lasted ``window`` ms or more), as Flink's ``NFA.advanceTime``."""
        window, start = self.window, self.start
        survivors = JavaQueue()
        for run in state.partial.items:
            if not (run.state != start and window > 0 and timestamp - run.start_time >= window):
                survivors.offer(run)
        state.partial = survivors
        state.counts = {t: n for t, n in state.counts.items() if t >= timestamp}

    def process(self, state: NFAState, row: Any, timestamp: int) -> tuple[list[Run], bool]:
        """Feed one event (Flink's ``NFA.process``); the matches it completes, in the order
        they are emitted, and whether a new run started with it."""
        event = _Event(row, timestamp, state.counts)
        runs = JavaQueue()
        completed = JavaQueue()
        states = self.states
        for run in state.partial.items:
            for produced in self._next_runs(run, event):
                if states[produced.state].kind == "FINAL":
                    completed.offer(produced)
                else:
                    runs.offer(produced)
        matches = self._emit(state, completed, runs)
        state.partial = runs
        started = event.id is not None and any(r.start_id == event.id for r in runs.items)
        return matches, started

    def _emit(self, state: NFAState, completed: JavaQueue, runs: JavaQueue) -> list[Run]:
        """Flink's ``processMatchesAccordingToSkipStrategy``: completed matches are emitted
        in the order they started, each once no run that started before it is still open."""
        for match in completed.items:
            state.completed.offer(match)
        emitted = []
        earliest = state.completed.peek()
        while earliest is not None:
            pending = runs.peek()
            if pending is not None and _order(earliest) > _order(pending):
                break
            state.completed.poll()
            doomed = self.skip.doomed(self.skip.pruning_id(earliest.path))
            runs.remove_where(doomed)
            state.completed.remove_where(doomed)
            emitted.append(earliest)
            earliest = state.completed.peek()
        return emitted

    def _next_runs(self, run: Run, event: _Event) -> list[Run]:
        """Flink's ``computeNextStates``: the runs ``run`` becomes with ``event``."""
        states = self.states
        context = _Context(run, self.conditions)
        edges = []  # the TAKE transitions whose condition holds, reached through PROCEEDs
        stack = [states[run.state]]
        while stack:
            current = stack.pop()
            for action, target, condition in current.transitions:
                if context.holds(condition, event):
                    if action == PROCEED:
                        stack.append(states[target])
                    else:
                        edges.append((current, target))
        produced: list[Run] = []
        starting = run.state == self.start
        for source, target in edges:
            event_id = event.taken()
            path = (*run.path, (source.variable, event_id, event.row))
            start_time, start_id = (event.timestamp, event_id) if starting else (run.start_time, run.start_id)
            produced.append(Run(target, path, start_time, start_id))
            final = self._final_after_proceed(context, states[target], event)
            if final is not None:
                produced.append(Run(final, path, start_time, start_id))
        if starting:
            produced.append(Run(run.state, (), -1, None))
        return produced

    def _final_after_proceed(self, context: _Context, state: State, event: _Event) -> str | None:
        stack = [state]
        while stack:
            for action, target, condition in stack.pop().transitions:
                if action == PROCEED and context.holds(condition, event):
                    if self.states[target].kind == "FINAL":
                        return target
                    stack.append(self.states[target])
        return None


class _Event:
    """The event being processed; its id is given when a run first takes it (Flink's
    ``EventWrapper``: the count of events taken at its timestamp so far)."""

    __slots__ = ("counts", "id", "row", "timestamp")

    def __init__(self, row: Any, timestamp: int, counts: dict[int, int]) -> None:
        self.row, self.timestamp, self.counts = row, timestamp, counts
        self.id: EventId | None = None

    def taken(self) -> EventId:
        if self.id is None:
            number = self.counts.get(self.timestamp, 0)
            self.counts[self.timestamp] = number + 1
            self.id = (self.timestamp, number)
        return self.id


class _Context:
    """A run's conditions for one event: the run's events by variable, grouped once."""

    __slots__ = ("_events", "conditions", "run")

    def __init__(self, run: Run, conditions: Mapping[str, DefineCondition]) -> None:
        self.run, self.conditions = run, conditions
        self._events: dict[str, list[Any]] | None = None

    def events(self) -> dict[str, list[Any]]:
        if self._events is None:
            grouped: dict[str, list[Any]] = {}
            for variable, _, row in self.run.path:
                grouped.setdefault(variable, []).append(row)
            self._events = grouped
        return self._events

    def holds(self, condition: Condition, event: _Event) -> bool:
        kind = condition[0]
        if kind == "TRUE":
            return True
        if kind == "VAR":
            defined = self.conditions.get(condition[1])
            return defined is None or defined(self.events(), event.row, event.timestamp)
        if kind == "AND":
            return self.holds(condition[1], event) and self.holds(condition[2], event)
        return not self.holds(condition[1], event)


def matched_events(run: Run) -> dict[str, list[Any]]:
    """A completed match's rows by variable, in order."""
    grouped: dict[str, list[Any]] = {}
    for variable, _, row in run.path:
        grouped.setdefault(variable, []).append(row)
    return grouped
