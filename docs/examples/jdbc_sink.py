"""PyFlink's JdbcSink: each record of a DataStream written with an INSERT, in batches."""

import sqlite3

from millstream.common import Row, Types
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink

with sqlite3.connect("library.db") as db:
    db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, authors TEXT, year INTEGER)")

env = StreamExecutionEnvironment.get_execution_environment()
type_info = Types.ROW([Types.INT(), Types.STRING(), Types.STRING(), Types.INT()])
books = env.from_collection(
    [
        Row(101, "Stream Processing with Apache Flink", "Fabian Hueske, Vasiliki Kalavri", 2019),
        Row(102, "Streaming Systems", "Tyler Akidau, Slava Chernyak, Reuven Lax", 2018),
        Row(103, "Designing Data-Intensive Applications", "Martin Kleppmann", 2017),
    ],
    type_info=type_info,
)
books.add_sink(
    JdbcSink.sink(
        "INSERT INTO books (id, title, authors, year) VALUES (?, ?, ?, ?)",
        type_info,
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
        .with_url("jdbc:sqlite:library.db")
        .with_driver_name("org.sqlite.JDBC")
        .build(),
        JdbcExecutionOptions.builder()
        .with_batch_interval_ms(1000)
        .with_batch_size(200)
        .with_max_retries(5)
        .build(),
    )
)
env.execute("books into the database")

with sqlite3.connect("library.db") as db:
    for book_id, title, year in db.execute("SELECT id, title, year FROM books ORDER BY year"):
        print(book_id, title, year)
