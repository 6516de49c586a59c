"""File formats with a schema, as ``pyflink.datastream.formats``: CSV (``csv``), JSON Lines
(``json``) and Parquet (``parquet``), read by ``FileSource`` and (CSV, Parquet) written in bulk
by ``FileSink``.

Records are ``Row``s with the schema's field names, and the source's type is the schema's
row type, so ``print`` shows them as Flink does (``+I[1, Alice]``). Users import them from
``millstream.datastream.formats``; this package imports none of its modules.
"""
