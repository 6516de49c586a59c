"""RuntimeExecutionMode at PyFlink's import path, ``pyflink.datastream.RuntimeExecutionMode``."""

from millstream.common.execution_mode import RuntimeExecutionMode

__all__ = ["RuntimeExecutionMode"]
