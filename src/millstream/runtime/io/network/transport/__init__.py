"""Data plane between TaskManagers: messages, server, client, connection manager.

One authenticated TCP connection per TaskManager pair carries every channel between them
(``connection_manager``); ``server`` serves partition requests and credits, ``client``
receives buffers for remote input channels; ``messages``: the wire format. All on the
TaskManager's network loop thread.
"""
