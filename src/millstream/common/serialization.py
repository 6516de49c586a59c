"""Encoders and schemas, as ``pyflink.common.serialization``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Encoder", "SimpleStringSchema"]


@dataclass(frozen=True, slots=True)
class Encoder:
    """Turns an element into bytes for a row-format file sink."""

    charset: str = "UTF-8"

    @staticmethod
    def simple_string_encoder(charset: str = "UTF-8") -> Encoder:
        """Each element's text (Java ``toString`` of the declared type) followed by a newline."""
        return Encoder(charset)


@dataclass(frozen=True, slots=True)
class SimpleStringSchema:
    """Strings to and from bytes."""

    charset: str = "UTF-8"
