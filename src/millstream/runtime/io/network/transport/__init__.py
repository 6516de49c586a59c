"""Data plane between TaskManagers: messages, server, client, connection manager."""
