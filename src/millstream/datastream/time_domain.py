"""TimeDomain at PyFlink's import path, ``pyflink.datastream.time_domain``."""

from millstream.common.time import TimeDomain

__all__ = ["TimeDomain"]
