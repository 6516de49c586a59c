"""The JobManager: Dispatcher, JobMaster, ResourceManager and what serves them.

``dispatcher`` (jobs in, JobMasters out); the JobMaster of one job: ``job_master`` (its RPC
gateway: checkpoint acknowledgements, operator events, savepoints, what clients read),
``job_master_scheduling`` (slots, scheduling of pipelined regions by ``scheduler``,
deployment, task state, completion), ``job_master_failover`` (restarts, with ``failover``'s
regions and ``restart_backoff``'s strategies), ``checkpoint_wiring`` and ``savepoints``
(its checkpoint coordinator), ``source_coordinator`` (FLIP-27 split enumerators);
``resource_manager`` (TaskExecutors and their slots), ``task_manager_registry``
(registration, heartbeats), ``collect`` (collect-sink channels to clients),
``job_manager_services`` (all of them on RPC). Each endpoint runs on its own main thread
(``rpc.endpoint``); RPC on the loop thread.
"""

__all__: list[str] = []
