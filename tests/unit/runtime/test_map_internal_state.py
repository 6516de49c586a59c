"""``MapState.get_internal_state()`` as PyFlink 2.3 has it (issue 46, point 9).

A public program keeps ``lut = self.lut_state.get_internal_state()`` and reads
``lut.get("141")``. In PyFlink (process mode) it is the internal map state of the key that
was current when it was taken: PyFlink 2.3.0, for a KeyedProcessFunction that holds the
first key's internal state and writes ``held.put("from_b", 1)`` while key ``b`` is
processed, prints ``a: ... [('from_b', 1), ('x', 2), ('y', 1)]`` at key ``a``'s next
element and ``b: ... [('x', 1)]`` for ``b``: the write went to ``a``'s map.
"""

from __future__ import annotations

import pytest

from millstream.common import Types
from millstream.datastream.state import MapStateDescriptor
from millstream.runtime.state.keyed_backend import KeyedStateError
from tests.unit.runtime.test_state_backends import BACKENDS, make


@pytest.mark.parametrize("kind", BACKENDS)
def test_the_internal_state_stays_with_the_key_it_was_taken_at(kind):
    backend = make(kind)
    try:
        lut = backend.get_state(MapStateDescriptor("lut", Types.STRING(), Types.INT()))
        backend.set_current_key("a")
        held = lut.get_internal_state()
        held.put("x", 1)
        held.put_all({"y": 1})
        assert held.get("x") == 1 and held.contains("y") and not held.is_empty()
        backend.set_current_key("b")
        lut.put("x", 1)
        held.put("from_b", 1)  # while b is current: still a's map
        assert sorted(lut.items()) == [("x", 1)]
        assert backend.current_key == "b"  # the key context is back
        b_view = lut.get_internal_state()
        backend.set_current_key("a")
        assert sorted(lut.items()) == [("from_b", 1), ("x", 1), ("y", 1)]
        assert sorted(held.keys()) == ["from_b", "x", "y"] and sorted(held.values()) == [1, 1, 1]
        assert b_view.items() == [("x", 1)]
        held.remove("y")
        b_view.clear()
        assert sorted(lut.keys()) == ["from_b", "x"]
        backend.set_current_key("b")
        assert lut.is_empty()
    finally:
        backend.dispose()


def test_without_a_current_key_it_says_so():
    backend = make("hashmap")
    lut = backend.get_state(MapStateDescriptor("lut", Types.STRING(), Types.INT()))
    with pytest.raises(KeyedStateError, match="needs a current key"):
        lut.get_internal_state()
