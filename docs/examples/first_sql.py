from millstream.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
sales = t_env.from_elements(
    [(1, "Germany", 12.5), (2, "China", 3.0), (3, "China", 4.5)], ["id", "country", "amount"]
)
t_env.create_temporary_view("sales", sales)
t_env.execute_sql(
    "SELECT country, COUNT(*) AS n, SUM(amount) AS total FROM sales GROUP BY country"
).print()
