"""``EnvironmentSettings``, as ``pyflink.table.environment_settings``: STREAMING or BATCH mode
and the configuration a TableEnvironment starts from."""

from __future__ import annotations

from millstream.common import Configuration

__all__ = ["EnvironmentSettings"]


class EnvironmentSettings:
    """Streaming or batch mode (``in_streaming_mode()``, ``in_batch_mode()``)."""

    def __init__(self, streaming: bool = True, configuration: Configuration | None = None) -> None:
        self._streaming = streaming
        self._configuration = configuration or Configuration()

    @staticmethod
    def in_streaming_mode() -> EnvironmentSettings:
        """Settings of a streaming TableEnvironment (changelogs, unbounded sources)."""
        return EnvironmentSettings(True)

    @staticmethod
    def in_batch_mode() -> EnvironmentSettings:
        """Settings of a batch TableEnvironment (bounded input, final results)."""
        return EnvironmentSettings(False)

    @staticmethod
    def new_instance() -> _SettingsBuilder:
        """A builder (``.in_batch_mode().build()``)."""
        return _SettingsBuilder()

    def is_streaming_mode(self) -> bool:
        """Whether the environment is in streaming mode."""
        return self._streaming

    def get_configuration(self) -> Configuration:
        """The settings' configuration."""
        return self._configuration


class _SettingsBuilder:
    def __init__(self) -> None:
        self._streaming = True
        self._configuration = Configuration()

    def in_streaming_mode(self) -> _SettingsBuilder:
        self._streaming = True
        return self

    def in_batch_mode(self) -> _SettingsBuilder:
        self._streaming = False
        return self

    def with_configuration(self, configuration: Configuration) -> _SettingsBuilder:
        self._configuration = configuration
        return self

    def build(self) -> EnvironmentSettings:
        return EnvironmentSettings(self._streaming, self._configuration)
