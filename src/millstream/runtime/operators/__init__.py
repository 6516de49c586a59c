"""The stream operators a task chains: one-input (``udf``, ``process``, ``grouped_reduce``,
``watermarks``, ``window`` and ``evicting_window``), two-input (``two_input``,
``interval_join``), ``sources`` and ``sinks``; ``base`` (lifecycle, state, error naming),
``elements`` (watermarks, statuses), ``timer_service`` (event- and processing-time timers),
``window_contracts`` / ``window_contexts`` / ``merging_window_set`` (what windows need).
Built by the operator chain (``taskmanager.operator_chain``) and called on the task thread;
processing-time timers fire through the task's mailbox.
"""

__all__: list[str] = []
