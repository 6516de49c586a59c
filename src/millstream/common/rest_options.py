"""The options of the REST API and web dashboard: Flink's keys and defaults.

A standalone JobManager (``millstream jobmanager``, ``millstream cluster start``) serves
the REST API on ``rest.port`` as Flink's does; the embedded cluster of ``env.execute()``
serves it only when asked (``rest.enabled``, or ``millstream run --web-ui``), as Flink's
local environment does only with a web UI. Listeners bind to loopback by default.
"""

from __future__ import annotations

from millstream.common.config_option import ConfigOption

__all__ = ["REST_BIND_ADDRESS", "REST_ENABLED", "REST_PORT", "WEB_REFRESH_INTERVAL"]

REST_ENABLED: ConfigOption[bool] = ConfigOption(
    "rest.enabled",
    False,
    bool,
    "Serve the REST API and web dashboard from the embedded cluster while its job runs (the "
    "address is printed on stderr). A standalone JobManager serves them unless this is false.",
)
REST_PORT: ConfigOption[int] = ConfigOption(
    "rest.port",
    8081,
    int,
    "Port of the REST API and web dashboard (0: a free port, printed when it listens).",
    minimum=0,
)
REST_BIND_ADDRESS: ConfigOption[str] = ConfigOption(
    "rest.bind-address",
    "127.0.0.1",
    str,
    "Interface the REST API listens on. Reading is open to whoever reaches it; cancelling, "
    "stopping and savepoints need the cluster's secret (a token derived from it).",
)
WEB_REFRESH_INTERVAL: ConfigOption[int] = ConfigOption(
    "web.refresh-interval",
    3000,
    int,
    "How often the web dashboard refreshes what it shows.",
    unit="ms",
    minimum=100,
)
