import os
import tempfile

from millstream.common import Configuration, Types
from millstream.datastream import (
    CheckpointingMode,
    EmbeddedRocksDBStateBackend,
    ExternalizedCheckpointRetention,
    StreamExecutionEnvironment,
)

checkpoints = tempfile.mkdtemp()
config = Configuration()
config.set_string("execution.checkpointing.dir", checkpoints)  # <dir>/<job id>/chk-<n>/
env = StreamExecutionEnvironment.get_execution_environment(config)
env.set_parallelism(1)
env.enable_checkpointing(1000, CheckpointingMode.EXACTLY_ONCE)  # every second
env.get_checkpoint_config().set_externalized_checkpoint_retention(
    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION  # keep the last one when cancelled
)
env.set_state_backend(EmbeddedRocksDBStateBackend())  # keyed state in RocksDB on local disk

orders = env.from_collection(
    [("alice", 12), ("bob", 5), ("alice", 30)], Types.TUPLE([Types.STRING(), Types.INT()])
)
orders.key_by(lambda order: order[0]).sum(1).print()
result = env.execute("checkpointed sum")
print("job finished:", result.get_job_id() is not None)
print("checkpoint directory written:", any(os.scandir(checkpoints)))
