"""Values between Python and pandas as PyFlink's pandas functions see them: a column's values as a
Series (through Arrow, typed as PyFlink types them), a function's Series back as values, a table's
rows as the DataFrame ``Table.to_pandas`` returns, and a pandas call evaluated on one row.

pandas is optional (the ``spark`` extra installs it): it is imported where a pandas function runs."""

from __future__ import annotations

import datetime
from typing import Any

import pyarrow as pa

from millstream.table.common.types import DataType, RowType

__all__ = ["data_frame_of", "evaluate_one_row", "series_of"]


def series_of(values: list[Any], data_type: DataType) -> Any:
    """A column's values as PyFlink hands them to a pandas function: through Arrow."""
    if isinstance(data_type, RowType):
        # pandas is optional (only the [spark] extra installs it): imported when a pandas function runs
        import pandas as pd

        names = data_type.field_names()
        columns = [
            series_of([None if v is None else v[i] for v in values], t).rename(n)
            for i, (n, t) in enumerate(zip(names, data_type.field_types(), strict=True))
        ]
        return pd.concat(columns, axis=1)
    arrow_type = _arrow_type(data_type)
    return pa.array(values, type=arrow_type).to_pandas(date_as_object=True)


def _arrow_type(data_type: DataType) -> Any:
    if data_type.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):  # naive wall-clock values (common/timestamps.py)
        return pa.timestamp("us")
    if data_type.root == "NULL":
        return pa.null()
    try:
        return data_type.to_arrow()
    except (KeyError, AttributeError, TypeError):
        return None  # Arrow infers it


def data_frame_of(names: list[str], types: list[DataType], rows: list[tuple[Any, ...]]) -> Any:
    """A table's rows as the pandas DataFrame ``Table.to_pandas`` returns: through Arrow, typed
    as PyFlink's ``to_arrow_type`` types the columns (INT int32, FLOAT float32, TIMESTAMP(p)
    in seconds, ms, us or ns by its precision), TIMESTAMP_LTZ columns localized to the session
    (this process's) time zone; no rows: an empty frame of the columns, as PyFlink's."""
    # pandas is optional (only the [spark] extra installs it): imported when a pandas function runs
    import pandas as pd

    if not rows:
        return pd.DataFrame.from_records([], columns=names)
    arrays = [pa.array([r[i] for r in rows], type=_pandas_arrow_type(t)) for i, t in enumerate(types)]
    frame = pa.Table.from_arrays(arrays, names=[f"${i}" for i in range(len(names))]).to_pandas()
    frame.columns = list(names)  # the names as they are (a duplicate too)
    zone = datetime.datetime.now().astimezone().tzinfo
    for i, t in enumerate(types):
        if t.root == "TIMESTAMP_LTZ":
            frame[frame.columns[i]] = frame.iloc[:, i].dt.tz_localize(zone)
    return frame


def _pandas_arrow_type(data_type: DataType) -> Any:
    root, params = data_type.root, data_type.params
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "TIME"):
        precision = int(params[0]) if params else (6 if root != "TIME" else 0)
        unit = "s" if precision == 0 else "ms" if precision <= 3 else "us" if precision <= 6 else "ns"
        if root != "TIME":
            return pa.timestamp(unit)
        return pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
    return _arrow_type(data_type)


def _values(result: Any, data_type: DataType) -> list[Any]:
    """The function's Series (a DataFrame for a ROW result) as the column's Python values."""
    # pandas is optional (only the [spark] extra installs it): imported when a pandas function runs
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        if not isinstance(data_type, RowType):
            raise TypeError(f"a pandas UDF returned a DataFrame for a {data_type!r} result")
        columns = [_values(result[result.columns[i]], t) for i, t in enumerate(data_type.field_types())]
        return list(zip(*columns, strict=True)) if columns else [() for _ in range(len(result))]
    array = pa.Array.from_pandas(result, mask=result.isnull(), type=_arrow_type(data_type))
    values: list[Any] = array.to_pylist()
    return values


def evaluate_one_row(
    function: Any,  # a udf's _PandasScalar
    name: str,
    arg_types: list[DataType],
    result_type: DataType,
    args: tuple[Any, ...],
) -> Any:
    """A pandas call outside a Calc: Series of one value each, the Series' one result."""
    # pandas is optional (only the [spark] extra installs it): imported when a pandas function runs
    import pandas as pd

    result = function.function(*(series_of([a], t) for a, t in zip(args, arg_types, strict=True)))
    if not isinstance(result, (pd.Series, pd.DataFrame)):
        raise TypeError(
            f"The result type of Pandas UDF '{name}' must be pandas.Series or "
            f"pandas.DataFrame, got {type(result)}"
        )
    if len(result) != 1:
        raise ValueError(
            f"The result length '{len(result)}' of Pandas UDF '{name}' is not equal to the input length '1'"
        )
    return _values(result, result_type)[0]
