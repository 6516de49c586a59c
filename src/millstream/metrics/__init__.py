"""Metric reporters of the JobManager and TaskManagers (Prometheus), started as plugins of
their processes (``millstream.runtime.plugins``)."""
