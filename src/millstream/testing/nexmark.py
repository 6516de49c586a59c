# ruff: noqa: E501 - the queries read best as written
"""Nexmark on files: an event generator, the Nexmark schema and views, and the queries.

Nexmark models an online auction: people register, open auctions and bid. Its Flink
benchmark reads one table of events (``event_type`` 0 person, 1 auction, 2 bid, each kind a
nested ROW column) and three views over it; the queries are SQL over those views. Here the
events are generated into a JSON-lines file, so millstream (the filesystem connector) and a
peer engine (DuckDB) read the same data:

    write_events(path, 1_000_000)
    for statement in ddl(path): t_env.execute_sql(statement)
    t_env.execute_sql(QUERIES["q5"].sql)

The generator is this project's own model of Nexmark's (deterministic for a seed): of every
50 events 1 is a person, 3 are auctions and 46 are bids; events are 0.1 ms apart in event
time (10,000 a second) and in order; half of the bids go to the newest auction (a hot item),
the rest to one of the 100 newest; sellers and bidders are recent people; an auction expires
2 to 20 s after it opens.

``QUERIES`` holds, per query, Flink SQL over the views (the semantics of Nexmark's query of
that number) and the same question for DuckDB (window TVFs spelled with epoch arithmetic,
session windows with window functions). ``SIDE_INPUT_QUERIES`` holds q13, which also reads
Nexmark's side input (``write_side_input``, ``side_input_ddl``): a lookup join of each bid with
the side input's row of its auction modulo 10,000, as Nexmark's query is written.
"""

from __future__ import annotations

import datetime
import json
import random
from dataclasses import dataclass

__all__ = [
    "CONFIGURATION",
    "QUERIES",
    "SIDE_INPUT_QUERIES",
    "NexmarkQuery",
    "ddl",
    "duckdb_side_input",
    "duckdb_views",
    "side_input_ddl",
    "write_events",
    "write_side_input",
]

BASE = datetime.datetime(2024, 1, 1)
EVENT_GAP_US = 100  # 10,000 events per second of event time
_STATES = ["AZ", "CA", "ID", "OR", "WA", "WY"]
_CITIES = [
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne",
]
_FIRST = ["Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"]
_LAST = ["Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"]
_CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]
_FIRST_ID = 1000


def _stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _extra(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(0, 12)))


def write_events(path: str, count: int, seed: int = 7, gap_us: int = EVENT_GAP_US) -> None:
    """``count`` Nexmark events as JSON lines at ``path``, ``gap_us`` microseconds apart in
    event time."""
    rng = random.Random(seed)
    people = auctions = 0
    dumps = json.dumps
    with open(path, "w") as out:
        for i in range(count):
            moment = BASE + datetime.timedelta(microseconds=i * gap_us)
            stamp = _stamp(moment)
            slot = i % 50
            person = auction = bid = None
            if slot == 0:
                kind = 0
                person = {
                    "id": _FIRST_ID + people,
                    "name": f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
                    "emailAddress": f"user{people}@example.com",
                    "creditCard": " ".join(f"{rng.randint(0, 9999):04d}" for _ in range(4)),
                    "city": rng.choice(_CITIES),
                    "state": rng.choice(_STATES),
                    "dateTime": stamp,
                    "extra": _extra(rng),
                }
                people += 1
            elif slot <= 3:
                kind = 1
                initial = rng.randint(1, 1000)
                auction = {
                    "id": _FIRST_ID + auctions,
                    "itemName": f"item-{rng.randint(0, 9999)}",
                    "description": f"description {rng.randint(0, 99)}",
                    "initialBid": initial,
                    "reserve": initial + rng.randint(0, 1000),
                    "dateTime": stamp,
                    "expires": _stamp(moment + datetime.timedelta(milliseconds=rng.randint(2000, 20000))),
                    "seller": _FIRST_ID + max(0, people - 1 - rng.randint(0, 9)),
                    "category": 10 + rng.randint(0, 4),
                    "extra": _extra(rng),
                }
                auctions += 1
            else:
                kind = 2
                newest = max(0, auctions - 1)
                offset = 0 if rng.random() < 0.5 else rng.randint(0, 99)
                bid = {
                    "auction": _FIRST_ID + max(0, newest - offset),
                    "bidder": _FIRST_ID + max(0, people - 1 - rng.randint(0, 20)),
                    "price": int(10 ** rng.uniform(1, 4)),
                    "channel": rng.choice(_CHANNELS)
                    if rng.random() < 0.9
                    else f"channel-{rng.randint(0, 99)}",
                    "url": f"https://www.nexmark.com/item.htm?query=1&channel_id={rng.randint(0, 99)}",
                    "dateTime": stamp,
                    "extra": _extra(rng),
                }
            record = {"event_type": kind, "person": person, "auction": auction, "bid": bid}
            out.write(dumps(record, separators=(",", ":")))
            out.write("\n")


_PERSON = "id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR"
_AUCTION = "id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR"
_BID = "auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR"


# The table options Nexmark runs its queries with (nexmark-flink's sql-client-defaults.yaml:
# mini-batches of up to 50,000 rows or 2 s for the group aggregations; its
# ``table.optimizer.distinct-agg.split.enabled`` has no millstream equal yet)
CONFIGURATION = {
    "table.exec.mini-batch.enabled": "true",
    "table.exec.mini-batch.allow-latency": "2 s",
    "table.exec.mini-batch.size": "50000",
}


def ddl(path: str, table: str = "nexmark_events") -> list[str]:
    """The statements that make ``person``, ``auction`` and ``bid`` views over the events at
    ``path``: the events table (nested ROWs, a computed event time with a 4 s watermark delay,
    as Nexmark's) and the three views."""
    return [
        f"""CREATE TABLE {table} (
            event_type INT,
            person ROW<{_PERSON}>,
            auction ROW<{_AUCTION}>,
            bid ROW<{_BID}>,
            `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime`
                               WHEN event_type = 1 THEN auction.`dateTime`
                               ELSE bid.`dateTime` END,
            WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
        ) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')""",
        f"""CREATE VIEW person AS SELECT person.id, person.name, person.emailAddress,
            person.creditCard, person.city, person.state, `dateTime`, person.extra
            FROM {table} WHERE event_type = 0""",
        f"""CREATE VIEW auction AS SELECT auction.id, auction.itemName, auction.description,
            auction.initialBid, auction.reserve, `dateTime`, auction.expires, auction.seller,
            auction.category, auction.extra FROM {table} WHERE event_type = 1""",
        f"""CREATE VIEW bid AS SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url,
            `dateTime`, bid.extra FROM {table} WHERE event_type = 2""",
    ]


def duckdb_views(path: str) -> list[str]:
    """The same three views in DuckDB, reading the file each time a query runs (load + query)."""

    def struct(columns: str) -> str:
        return "STRUCT(" + columns.replace("`", "").replace("TIMESTAMP(3)", "TIMESTAMP") + ")"

    source = (
        f"read_json('{path}', format = 'newline_delimited', columns = {{"
        f"event_type: 'INTEGER', person: '{struct(_PERSON)}', auction: '{struct(_AUCTION)}', "
        f"bid: '{struct(_BID)}'}})"
    )
    return [
        f"""CREATE OR REPLACE VIEW person AS SELECT person.id, person.name, person.emailAddress,
            person.creditCard, person.city, person.state, person.dateTime, person.extra
            FROM {source} WHERE event_type = 0""",
        f"""CREATE OR REPLACE VIEW auction AS SELECT auction.id, auction.itemName,
            auction.description, auction.initialBid, auction.reserve, auction.dateTime,
            auction.expires, auction.seller, auction.category, auction.extra
            FROM {source} WHERE event_type = 1""",
        f"""CREATE OR REPLACE VIEW bid AS SELECT bid.auction, bid.bidder, bid.price,
            bid.channel, bid.url, bid.dateTime, bid.extra FROM {source} WHERE event_type = 2""",
    ]


@dataclass(frozen=True)
class NexmarkQuery:
    """One Nexmark query: its result columns (the sink's DDL), Flink SQL and DuckDB SQL."""

    columns: str
    sql: str
    duckdb: str


def _tumble(column: str, size_ms: int) -> str:
    """DuckDB: the start of the ``size_ms`` tumbling window of ``column`` (epoch aligned)."""
    return f"make_timestamp((epoch_ms({column}) // {size_ms} * {size_ms}) * 1000)"


QUERIES: dict[str, NexmarkQuery] = {
    # q0: pass-through
    "q0": NexmarkQuery(
        "auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra VARCHAR",
        "SELECT auction, bidder, price, `dateTime`, extra FROM bid",
        "SELECT auction, bidder, price, dateTime, extra FROM bid",
    ),
    # q1: currency conversion
    "q1": NexmarkQuery(
        "auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), `dateTime` TIMESTAMP(3), extra VARCHAR",
        "SELECT auction, bidder, 0.908 * price AS price, `dateTime`, extra FROM bid",
        "SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid",
    ),
    # q2: selection
    "q2": NexmarkQuery(
        "auction BIGINT, price BIGINT",
        "SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0",
        "SELECT auction, price FROM bid WHERE auction % 123 = 0",
    ),
    # q3: local item suggestion (a regular join)
    "q3": NexmarkQuery(
        "name VARCHAR, city VARCHAR, state VARCHAR, id BIGINT",
        "SELECT P.name, P.city, P.state, A.id FROM auction AS A INNER JOIN person AS P ON A.seller = P.id "
        "WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')",
        "SELECT P.name, P.city, P.state, A.id FROM auction AS A INNER JOIN person AS P ON A.seller = P.id "
        "WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')",
    ),
    # q4: average closing price per category
    "q4": NexmarkQuery(
        "id BIGINT, final BIGINT",
        "SELECT Q.category, AVG(Q.final) FROM (SELECT MAX(B.price) AS final, A.category FROM auction A, bid B "
        "WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires GROUP BY A.id, A.category) Q "
        "GROUP BY Q.category",
        "SELECT Q.category, SUM(Q.final) // COUNT(Q.final) FROM (SELECT MAX(B.price) AS final, A.category FROM auction A, bid B "
        "WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires GROUP BY A.id, A.category) Q "
        "GROUP BY Q.category",
    ),
    # q5: hot items (the auctions with the most bids per sliding window)
    "q5": NexmarkQuery(
        "auction BIGINT, num BIGINT",
        "SELECT AuctionBids.auction, AuctionBids.num FROM ("
        "SELECT auction, COUNT(*) AS num, window_start AS starttime, window_end AS endtime "
        "FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) "
        "GROUP BY auction, window_start, window_end) AS AuctionBids JOIN ("
        "SELECT MAX(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime FROM ("
        "SELECT COUNT(*) AS num, window_start AS starttime, window_end AS endtime "
        "FROM TABLE(HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) "
        "GROUP BY auction, window_start, window_end) AS CountBids "
        "GROUP BY CountBids.starttime, CountBids.endtime) AS MaxBids "
        "ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime "
        "AND AuctionBids.num >= MaxBids.maxn",
        "WITH hops AS (SELECT auction, ws AS starttime, ws + INTERVAL 10 SECOND AS endtime FROM ("
        f"SELECT auction, unnest(generate_series({_tumble('dateTime', 2000)} - INTERVAL 8 SECOND, "
        f"{_tumble('dateTime', 2000)}, INTERVAL 2 SECOND)) AS ws FROM bid)), "
        "counts AS (SELECT auction, COUNT(*) AS num, starttime, endtime FROM hops GROUP BY auction, starttime, endtime) "
        "SELECT c.auction, c.num FROM counts c JOIN (SELECT MAX(num) AS maxn, starttime, endtime FROM counts "
        "GROUP BY starttime, endtime) m ON c.starttime = m.starttime AND c.endtime = m.endtime AND c.num >= m.maxn",
    ),
    # q7: highest bid per tumbling window
    "q7": NexmarkQuery(
        "auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra VARCHAR",
        "SELECT B.auction, B.price, B.bidder, B.`dateTime`, B.extra FROM bid B JOIN ("
        "SELECT MAX(price) AS maxprice, window_end AS `dateTime` "
        "FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end) B1 ON B.price = B1.maxprice "
        "WHERE B.`dateTime` BETWEEN B1.`dateTime` - INTERVAL '10' SECOND AND B1.`dateTime`",
        "SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra FROM bid B JOIN ("
        f"SELECT MAX(price) AS maxprice, {_tumble('dateTime', 10000)} + INTERVAL 10 SECOND AS dateTime "
        f"FROM bid GROUP BY {_tumble('dateTime', 10000)}) B1 ON B.price = B1.maxprice "
        "WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL 10 SECOND AND B1.dateTime",
    ),
    # q8: people who opened an auction in the window they registered in
    "q8": NexmarkQuery(
        "id BIGINT, name VARCHAR, stime TIMESTAMP(3)",
        "SELECT P.id, P.name, P.starttime FROM ("
        "SELECT id, name, window_start AS starttime, window_end AS endtime "
        "FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) "
        "GROUP BY id, name, window_start, window_end) P JOIN ("
        "SELECT seller, window_start AS starttime, window_end AS endtime "
        "FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) "
        "GROUP BY seller, window_start, window_end) A "
        "ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime",
        "SELECT P.id, P.name, P.starttime FROM ("
        f"SELECT DISTINCT id, name, {_tumble('dateTime', 10000)} AS starttime FROM person) P JOIN ("
        f"SELECT DISTINCT seller, {_tumble('dateTime', 10000)} AS starttime FROM auction) A "
        "ON P.id = A.seller AND P.starttime = A.starttime",
    ),
    # q9: the winning bid of each auction
    "q9": NexmarkQuery(
        "id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), "
        "expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR, auction BIGINT, bidder BIGINT, "
        "price BIGINT, bid_dateTime TIMESTAMP(3), bid_extra VARCHAR",
        "SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra, "
        "auction, bidder, price, bid_dateTime, bid_extra FROM ("
        "SELECT A.*, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra, "
        "ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum "
        "FROM auction A, bid B WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires) "
        "WHERE rownum <= 1",
        "SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra, "
        "auction, bidder, price, bid_dateTime, bid_extra FROM ("
        "SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra, "
        "ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC) AS rownum "
        "FROM auction A, bid B WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires) "
        "WHERE rownum <= 1",
    ),
    # q11: bids per user session (session windows, legacy group-window syntax)
    "q11": NexmarkQuery(
        "bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3)",
        "SELECT B.bidder, COUNT(*) AS bid_count, SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) AS starttime, "
        "SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) AS endtime FROM bid B "
        "GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND)",
        "WITH stamps AS (SELECT bidder, dateTime, COUNT(*) AS n FROM bid GROUP BY bidder, dateTime), "
        "marked AS (SELECT bidder, dateTime, n, CASE WHEN dateTime - LAG(dateTime) OVER (PARTITION BY bidder "
        "ORDER BY dateTime) < INTERVAL 10 SECOND THEN 0 ELSE 1 END AS fresh FROM stamps), "
        "numbered AS (SELECT bidder, dateTime, n, SUM(fresh) OVER (PARTITION BY bidder ORDER BY dateTime) AS session "
        "FROM marked) "
        "SELECT bidder, CAST(SUM(n) AS BIGINT) AS bid_count, MIN(dateTime) AS starttime, "
        "MAX(dateTime) + INTERVAL 10 SECOND AS endtime "
        "FROM numbered GROUP BY bidder, session",
    ),
}


SIDE_INPUT_ROWS = 10_000  # Nexmark's side_input_gen.sh: --num 10000


def write_side_input(path: str, rows: int = SIDE_INPUT_ROWS) -> None:
    """Nexmark's side input file (its ``SideInputGenerator``): ``i,i`` for i in 0 .. rows - 1."""
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"{i},{i}\n" for i in range(rows))


def side_input_ddl(path: str) -> str:
    """The ``side_input`` table q13 reads (Nexmark's DDL, with the filesystem connector's
    options: the lookup table a q13 bid fetches its row from)."""
    return (
        "CREATE TABLE side_input (key BIGINT, `value` VARCHAR) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )


def duckdb_side_input(path: str) -> str:
    """The side input as a DuckDB view."""
    return (
        "CREATE OR REPLACE VIEW side_input AS SELECT * FROM read_csv("
        f"'{path}', header = false, columns = {{'key': 'BIGINT', 'value': 'VARCHAR'}})"
    )


SIDE_INPUT_QUERIES: dict[str, NexmarkQuery] = {
    # q13: bounded side input join (a lookup join as of each bid's processing time)
    "q13": NexmarkQuery(
        "auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), `value` VARCHAR",
        "SELECT B.auction, B.bidder, B.price, B.`dateTime`, S.`value` "
        "FROM (SELECT *, PROCTIME() as p_time FROM bid) B "
        "JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S ON mod(B.auction, 10000) = S.key",
        "SELECT B.auction, B.bidder, B.price, B.dateTime, S.value FROM bid B "
        "JOIN side_input S ON B.auction % 10000 = S.key",
    ),
}
