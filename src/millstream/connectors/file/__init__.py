"""Files: ``FileSource`` (``source``: stream and bulk formats, monitoring) and ``FileSink``
(``sink``: row and bulk formats, rolling part files in buckets). Users import them from
``millstream.datastream.connectors``; this package imports none of its modules."""
