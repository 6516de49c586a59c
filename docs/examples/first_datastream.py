from millstream.common import Types
from millstream.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
lines = env.from_collection(["to be or", "not to be"])
counts = (
    lines.flat_map(lambda line: line.split())
    .map(lambda word: (word, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
    .key_by(lambda pair: pair[0])
    .reduce(lambda a, b: (a[0], a[1] + b[1]))
)
counts.print()
env.execute("word count")
