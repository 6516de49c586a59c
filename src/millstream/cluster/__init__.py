"""Standalone cluster processes: the JobManager and TaskManager entry points."""
