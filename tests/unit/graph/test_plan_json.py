"""get_execution_plan() in Flink's JSON plan format."""

from __future__ import annotations

import json

from tests.conftest import make_env


def test_plan_has_flinks_fields_and_ship_strategies():
    env = make_env(2)
    env.from_collection(["a b"]).flat_map(str.split).key_by(lambda w: w).map(lambda w: (w, 1)).print()
    plan = json.loads(env.get_execution_plan())
    nodes = {n["id"]: n for n in plan["nodes"]}
    assert [n["type"] for n in plan["nodes"]] == [
        "Source: Collection Source",
        "FlatMap",
        "Map",
        "Print to Std. Out",
    ]
    assert [n["pact"] for n in plan["nodes"]] == [
        "Data Source",
        "Operator",
        "Operator",
        "Data Sink",
    ]
    for node in plan["nodes"]:
        assert set(node) >= {"id", "type", "pact", "contents", "parallelism"}
    source, flat_map, map_, sink = plan["nodes"]
    assert source["parallelism"] == 1 and "predecessors" not in source
    assert flat_map["predecessors"] == [{"id": source["id"], "ship_strategy": "REBALANCE", "side": "second"}]
    assert map_["predecessors"][0]["ship_strategy"] == "HASH"
    assert sink["predecessors"][0]["ship_strategy"] == "FORWARD"
    assert nodes[map_["predecessors"][0]["id"]]["type"] == "FlatMap"


def test_plan_lists_every_partitioner_by_flink_name():
    env = make_env(2)
    ds = env.from_collection([1]).map(lambda x: x)
    ds.rebalance().print()
    ds.rescale().print()
    ds.shuffle().print()
    ds.broadcast().print()
    getattr(ds, "global")().print()
    ds.partition_custom(lambda k, n: 0, lambda x: x).print()
    ds.forward().print()
    strategies = [
        p["ship_strategy"]
        for n in json.loads(env.get_execution_plan())["nodes"]
        for p in n.get("predecessors", [])
    ]
    assert strategies[1:] == [
        "REBALANCE",
        "RESCALE",
        "SHUFFLE",
        "BROADCAST",
        "GLOBAL",
        "CUSTOM",
        "FORWARD",
    ]
