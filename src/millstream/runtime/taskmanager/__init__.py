"""The TaskManager: TaskExecutor (slots, deployed tasks), Task (one attempt's lifecycle) and
what runs inside a task: ``stream_task`` (the mailbox loop: input, timers, output
flushing), ``operator_chain`` (operators wired as direct calls), ``input_processor`` and
``watermark_valve`` (network input to the head), ``sorted_input`` (BATCH's sorted keyed
inputs), ``bundles``, ``network_environment`` (the TaskManager's network stack),
``task_manager_runner`` (a TaskManager process). One thread per task; the TaskExecutor's
calls on its main thread.
"""

__all__: list[str] = []
