"""millstream: Apache Flink's architecture in Python, with a PyFlink-compatible DataStream API."""

__all__ = ["__version__"]

__version__ = "0.1.0"
