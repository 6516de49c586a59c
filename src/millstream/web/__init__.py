"""Operations: the JobManager's REST API and web dashboard (Flink's resource paths and JSON).

``rest_server`` serves them on the JobManager's event loop; ``flink_json`` turns what the
JobMaster reports (``JobDetails``, task metrics) into Flink's JSON documents; ``auth``
derives the token that state changes need from the cluster's secret.
"""
