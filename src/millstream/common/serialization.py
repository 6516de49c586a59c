"""Encoders and schemas, as ``pyflink.common.serialization``."""

from __future__ import annotations

from dataclasses import dataclass

from millstream.common.typeinfo import Types

__all__ = ["ByteArraySchema", "Encoder", "RowFieldExtractorSchema", "SimpleStringSchema"]


@dataclass(frozen=True, slots=True)
class Encoder:
    """Turns an element into bytes for a row-format file sink."""

    charset: str = "UTF-8"

    @staticmethod
    def simple_string_encoder(charset_name: str = "UTF-8") -> Encoder:
        """Each element's text (Java ``toString`` of the declared type) followed by a newline."""
        return Encoder(charset_name)


@dataclass(frozen=True, slots=True)
class SimpleStringSchema:
    """Strings to and from bytes."""

    charset: str = "UTF-8"


@dataclass(frozen=True, slots=True)
class ByteArraySchema:
    """Bytes to and from bytes, unchanged."""

    def serialize(self, element: bytes | bytearray | None) -> bytes | None:
        """The element's bytes."""
        return None if element is None else bytes(element)

    def deserialize(self, message: bytes) -> bytes:
        """The message's bytes."""
        return message

    def get_produced_type(self) -> object:
        """``Types.PRIMITIVE_ARRAY(Types.BYTE())``."""
        return Types.PRIMITIVE_ARRAY(Types.BYTE())


@dataclass(frozen=True, slots=True)
class RowFieldExtractorSchema:
    """One field of a Row, which must already be bytes (a Kafka key or value)."""

    field_index: int

    def __post_init__(self) -> None:
        if self.field_index < 0:
            raise ValueError(f"field index must be non-negative, got {self.field_index}")

    def serialize(self, element: object) -> bytes | None:
        """The field's bytes (None for a null field)."""
        value = element[self.field_index]  # type: ignore[index]
        if value is None:
            return None
        if not isinstance(value, bytes | bytearray):
            raise TypeError(
                f"RowFieldExtractorSchema: field {self.field_index} must be bytes, got "
                f"{type(value).__name__}: convert it to bytes before the sink"
            )
        return bytes(value)
