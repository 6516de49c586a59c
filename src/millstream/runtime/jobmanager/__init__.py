"""The JobManager: Dispatcher, JobMaster, ResourceManager and what serves them.

``dispatcher`` (jobs in, JobMasters out), ``job_master`` (one job: slots, scheduling of
pipelined regions by ``scheduler``, deployment, task state, completion), ``resource_manager``
(TaskExecutors and their slots), ``task_manager_registry`` (registration, heartbeats),
``collect`` (collect-sink channels to clients), ``job_manager_services`` (all of them on
RPC). Each endpoint runs on its own main thread (``rpc.endpoint``); RPC on the loop thread.
"""

__all__: list[str] = []
