import os
import tempfile
import time

from millstream.common import Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.number_seq import NumberSequenceSource


def when_running(request):
    """A savepoint is refused until every task runs, as in Flink: ask again until they do."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return request().result(timeout=120)
        except Exception as error:
            if "Not all required tasks" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


savepoints = tempfile.mkdtemp()
env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
numbers = env.from_source(NumberSequenceSource(1, 10**12), WatermarkStrategy.no_watermarks(), "numbers")
(
    numbers.map(lambda n: (n % 3, n), output_type=Types.TUPLE([Types.LONG(), Types.LONG()]))
    .uid("pairs")  # operators find their state in a savepoint by uid
    .key_by(lambda pair: pair[0])
    .sum(1)
    .uid("sums")
    .filter(lambda pair: pair[1] < 0)  # prints nothing: the running sums are the state
    .print()
)
client = env.execute_async("running sums")
path = when_running(lambda: client.trigger_savepoint(savepoints))  # the job goes on
print("savepoint taken:", os.path.exists(os.path.join(path, "_metadata")))
path = client.stop_with_savepoint(savepoint_directory=savepoints).result(timeout=120)  # then stops
print("stopped with a savepoint:", os.path.exists(os.path.join(path, "_metadata")))
client.get_job_execution_result(timeout=120)
print("job status:", client.get_job_status().name)
# resume from it later, at any parallelism: millstream run -s <path> -p 4 job.py
