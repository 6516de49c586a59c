"""Spark runner: a millstream JobGraph on Apache Spark through PySpark."""
