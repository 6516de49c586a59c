from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t = t_env.from_elements([(1, "Germany"), (2, "China"), (4, "China")], ["id", "country"])
t.group_by(col("country")).select(col("country"), col("id").count).execute().print()
t_env.create_temporary_view("t", t)
t_env.execute_sql("SELECT country, COUNT(*) FROM t WHERE id > 1 GROUP BY country").print()
