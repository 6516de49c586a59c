"""Unbounded translation: a JobGraph becomes one Spark Structured Streaming query.

Modules: ``query`` (the translation), ``vertex_program`` (stateless vertices), ``kafka``
(the Kafka data source), ``keyed``
(keyed vertices and their state), ``envelope`` (rows between stages), ``client`` (sinks in
``foreachBatch`` and the JobClient). This package imports none of them.

Records travel in an envelope: ``tag`` (the data set, or ``collect:<id>``), ``key`` (the
pickled key of the consuming ``key_by`` edge, empty otherwise), ``ts`` (event time, ms),
``evt`` (the same as a timestamp column, for ``withWatermark``) and ``payload`` (the
pickled value).

* The source: an unbounded ``DataGeneratorSource`` becomes Spark's rate source (its
  counter feeds the generator function); a monitored ``FileSource`` of text lines becomes
  ``readStream.text``, in any other format (CSV, JSON Lines, Parquet)
  ``readStream.format("binaryFile")`` of the new files' paths, each file read by the
  format's own reader (the same parsing and error positions as on the embedded runtime;
  the files must be on a file system the executors mount); a ``KafkaSource`` becomes
  millstream's Python streaming data source ``millstream_kafka`` (``kafka``: offsets in the
  query's checkpoint), each message deserialized by the source's own deserializer with its
  Kafka timestamp. The rest of the source's chain (its timestamp assigner included) runs in
  ``mapInPandas``.
* Event time: the job's WatermarkStrategy becomes ``withWatermark("evt", bound + 1 ms)``
  (Flink's watermark is max - bound - 1); a table's ``WATERMARK FOR ts AS ts - INTERVAL d``
  ``withWatermark("evt", d)``. Spark's watermark comes from the rows reaching
  ``withWatermark``, Flink's from every record the timestamp assigner saw: each micro-batch
  partition of a chain with an assigner sends a carrier row (no payload) with the largest
  timestamp assigned, so a record filtered out after the assigner still moves the
  watermark; consumers skip carriers as records. Spark advances the watermark once per
  micro-batch and drops rows behind it at the stateful operator: late elements never
  reach a window, so a late-data side output cannot be expressed and is rejected.
* A stateless vertex runs its operator chain in ``mapInPandas``. A vertex with several
  input edges (union, connect) reads their union, each row tagged with its operator input.
* A keyed vertex runs in ``groupBy(key).transformWithStateInPandas``: per key, the
  operator chain's keyed state and timers are restored from Spark's state store (a
  RocksDB store with the query's checkpoint location), the key's rows are processed,
  event-time timers are mirrored to Spark timers, and the state is written back; an
  expired Spark timer advances the operator's watermark for that key. It is
  millstream's own operator code, so windows, reduce and KeyedProcessFunction behave as
  on the embedded runtime within Spark's per-batch watermark.
* Collect sinks reach the driver through ``foreachBatch``; file sinks are written there
  too, idempotently per micro-batch (``FileSinkWrite``); ``print`` prints on the executors.

Several keyed operators chain: each keyed operator's output carries the watermark on
(``eventTimeColumnName``), and an operator behind another one processes its rows before
its watermark advances, as Flink forwards a window's result before the watermark that
fired it.

A vertex with a broadcast input (broadcast state) runs as one Spark group holding one
chain per Flink subtask: keyed rows go to the subtask owning their key group, broadcast
rows to every subtask, broadcast rows of a micro-batch first.

Rejected before the query starts, naming the operator: custom watermark generators,
idleness, late-data side outputs, processing-time windows, and sources other than a
monitored FileSource, a KafkaSource or an unbounded DataGeneratorSource. Without a
watermark, keyed process functions run in Spark's ProcessingTime mode (their
processing-time timers become Spark timers); a processing-time timer in an event-time job
fails the query.
"""
