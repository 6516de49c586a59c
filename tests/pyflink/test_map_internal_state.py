"""A KeyedProcessFunction using ``MapState.get_internal_state()`` prints what PyFlink 2.3 prints
(issue 46, point 9; the semantics per backend are in tests/unit/runtime/test_map_internal_state.py)."""

from __future__ import annotations

from millstream.common import Types
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.functions import KeyedProcessFunction, RuntimeContext
from millstream.datastream.state import MapStateDescriptor


class Lut(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext):
        self.lut = runtime_context.get_map_state(MapStateDescriptor("lut", Types.STRING(), Types.INT()))
        self.held = None

    def process_element(self, value, ctx):
        key, item = value
        lut = self.lut.get_internal_state()
        lut.put(item, (lut.get(item) or 0) + 1)
        if self.held is not None and key == "b":
            self.held.put("from_b", 1)  # the internal state of the first key, held over
        if self.held is None:
            self.held = lut
        yield f"{key}: {sorted(lut.items())} contains x={lut.contains('x')} direct={sorted(self.lut.items())}"


def test_the_internal_state_of_a_key_prints_as_in_pyflink(capfd):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    pairs = [("a", "x"), ("a", "y"), ("b", "x"), ("a", "x")]
    env.from_collection(pairs, type_info=Types.TUPLE([Types.STRING(), Types.STRING()])).key_by(
        lambda t: t[0]
    ).process(Lut(), output_type=Types.STRING()).print()
    env.execute()
    # PyFlink 2.3.0 prints (its lines also name the class, InternalSynchronousMapRuntimeState):
    assert capfd.readouterr().out.splitlines() == [
        "a: [('x', 1)] contains x=True direct=[('x', 1)]",
        "a: [('x', 1), ('y', 1)] contains x=True direct=[('x', 1), ('y', 1)]",
        "b: [('x', 1)] contains x=True direct=[('x', 1)]",
        "a: [('from_b', 1), ('x', 2), ('y', 1)] contains x=True direct=[('from_b', 1), ('x', 2), ('y', 1)]",
    ]
