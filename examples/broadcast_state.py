"""Broadcast state, written as a PyFlink user writes it.

Alert limits per currency are broadcast to every parallel instance of a
KeyedBroadcastProcessFunction that watches transactions keyed by account. A transaction
above the limit of its currency raises an alert. Limits and transactions are two
independent streams, so a transaction may arrive before the limit of its currency: it
then waits in the account's keyed state, and when the limit arrives the broadcast side
checks the waiting transactions of every account (apply_to_keyed_state). The alerts are
therefore the same whichever stream is read first.

    python examples/broadcast_state.py [--parallelism N] [--batch]
"""

import argparse

from millstream.common import Types
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.functions import KeyedBroadcastProcessFunction
from millstream.datastream.state import ListStateDescriptor, MapStateDescriptor

LIMITS = MapStateDescriptor("limits", Types.STRING(), Types.INT())
WAITING = ListStateDescriptor("waiting", Types.PICKLED_BYTE_ARRAY())

TRANSACTIONS = [
    ("acct-1", "EUR", 900),
    ("acct-2", "USD", 5_000),
    ("acct-1", "EUR", 12_000),
    ("acct-3", "GBP", 700),
    ("acct-2", "USD", 300),
    ("acct-3", "GBP", 2_500),
    ("acct-1", "USD", 10_001),
]
ALERT_LIMITS = [("EUR", 10_000), ("USD", 4_000), ("GBP", 2_000)]


def alert(transaction, limit):
    account, currency, amount = transaction
    return f"ALERT {account}: {amount} {currency} is above the {currency} limit of {limit}"


class LimitCheck(KeyedBroadcastProcessFunction):
    def open(self, runtime_context):
        self.waiting = runtime_context.get_list_state(WAITING)

    def process_element(self, transaction, ctx):
        limit = ctx.get_broadcast_state(LIMITS).get(transaction[1])
        if limit is None:
            self.waiting.add(transaction)  # the limit is not known yet
        elif transaction[2] > limit:
            yield alert(transaction, limit)

    def process_broadcast_element(self, currency_limit, ctx):
        currency, limit = currency_limit
        ctx.get_broadcast_state(LIMITS).put(currency, limit)
        alerts = []

        def check_waiting(account, waiting):
            still_waiting = []
            for transaction in waiting.get():
                if transaction[1] != currency:
                    still_waiting.append(transaction)
                elif transaction[2] > limit:
                    alerts.append(alert(transaction, limit))
            waiting.update(still_waiting)

        ctx.apply_to_keyed_state(WAITING, check_waiting)
        yield from alerts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--batch", action="store_true", help="run in BATCH runtime mode")
    args = parser.parse_args(argv)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    if args.batch:
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)

    limits = env.from_collection(ALERT_LIMITS).broadcast(LIMITS)
    alerts = env.from_collection(TRANSACTIONS).key_by(lambda t: t[0]).connect(limits).process(LimitCheck())
    with alerts.execute_and_collect("limit alerts") as results:
        for line in sorted(results):
            print(line)


if __name__ == "__main__":
    main()
