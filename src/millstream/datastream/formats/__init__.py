"""``pyflink.datastream.formats``: CSV, JSON and Parquet formats for the file connector."""
