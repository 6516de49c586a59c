import asyncio
import functools

from millstream.common import Time, Types
from millstream.datastream import (
    AsyncDataStream,
    AsyncFunction,
    AsyncRetryStrategy,
    RuntimeContext,
    StreamExecutionEnvironment,
    async_retry_predicates,
)

USERS = {1: "ada", 2: "grace", 3: "edsger"}


class UserService:
    """Stands for an HTTP or database client; its first answer about user 2 is an error."""

    def __init__(self) -> None:
        self.failed_once = False

    async def name_of(self, user_id: int) -> str:
        await asyncio.sleep(0.05)  # the round trip
        if user_id == 2 and not self.failed_once:
            self.failed_once = True
            raise ConnectionError("connection reset")
        if user_id not in USERS:
            raise KeyError(user_id)
        return USERS[user_id]


class EnrichClicks(AsyncFunction):
    def open(self, runtime_context: RuntimeContext):
        self.service = UserService()

    async def async_invoke(self, click):
        user_id, page = click
        try:
            name = await self.service.name_of(user_id)
        except KeyError:
            return []  # unknown users are dropped
        return [f"{name} visited {page}"]

    def timeout(self, click):  # the default fails the job
        return [f"user {click[0]} visited {click[1]}"]


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
clicks = env.from_collection([(1, "/home"), (2, "/docs"), (4, "/pricing"), (3, "/blog")])
retry = AsyncRetryStrategy.fixed_delay(
    max_attempts=3,
    backoff_time_millis=100,
    result_predicate=None,
    exception_predicate=functools.partial(
        async_retry_predicates.exception_type_predicate, expected_error_type=ConnectionError
    ),
)
enriched = AsyncDataStream.ordered_wait_with_retry(
    clicks, EnrichClicks(), Time.seconds(5), retry, capacity=100, output_type=Types.STRING()
)
enriched.print()
env.execute("async enrichment")
