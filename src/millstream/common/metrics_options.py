"""The options of the Prometheus metric reporter: Flink's keys.

With ``metrics.reporter.prom.port`` set, the JobManager and every TaskManager serve their
metrics in Prometheus' text format at ``http://HOST:PORT/metrics``, each on the first free
port of the given port or range (``9250-9260``: several processes on one machine), as
Flink's PrometheusReporter does.
"""

from __future__ import annotations

from millstream.common.config_option import ConfigOption

__all__ = ["PROMETHEUS_HOST", "PROMETHEUS_PORT"]

PROMETHEUS_PORT: ConfigOption[str] = ConfigOption(
    "metrics.reporter.prom.port",
    "",
    str,
    "Port, or range of ports (9250-9260), on which each JobManager and TaskManager process serves "
    "its metrics to Prometheus (the first free one; 0: any). Empty: no Prometheus endpoint.",
)
PROMETHEUS_HOST: ConfigOption[str] = ConfigOption(
    "metrics.reporter.prom.host",
    "127.0.0.1",
    str,
    "Interface the Prometheus endpoints listen on.",
)
