"""millstream: Apache Flink's architecture in Python, with a PyFlink-compatible DataStream API.

millstream's own log records (JobManager, TaskManagers, network) go through the
``millstream`` logger at WARNING and above, whatever level the program gives the root
logger: a PyFlink program that calls ``logging.basicConfig(stream=sys.stdout,
level=logging.INFO)`` prints only its own lines, as under PyFlink, whose runtime logs
to Flink's log files. ``MILLSTREAM_LOG_LEVEL=INFO`` (or DEBUG) shows more.
"""

import logging as _logging
import os as _os

__all__ = ["__version__"]

__version__ = "0.1.0"

_runtime_log = _logging.getLogger("millstream")
if _runtime_log.level == _logging.NOTSET:
    _runtime_log.setLevel(_os.environ.get("MILLSTREAM_LOG_LEVEL", "WARNING").strip().upper() or "WARNING")
