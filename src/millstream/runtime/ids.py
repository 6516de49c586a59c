"""Distinct identifier types of the runtime."""

from __future__ import annotations

import uuid
from typing import NewType

__all__ = [
    "AllocationID",
    "ExecutionAttemptID",
    "InputChannelID",
    "ResourceID",
    "ResultPartitionID",
    "new_id",
]

ExecutionAttemptID = NewType("ExecutionAttemptID", str)
ResultPartitionID = NewType("ResultPartitionID", str)
InputChannelID = NewType("InputChannelID", str)
AllocationID = NewType("AllocationID", str)
ResourceID = NewType("ResourceID", str)


def new_id() -> str:
    """A fresh random id (32 hex digits)."""
    return uuid.uuid4().hex
