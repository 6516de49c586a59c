"""The control plane's RPC: endpoints, gateways, the wire format.

``endpoint``: RpcEndpoint (a main thread running the component's calls in order);
``gateways``: what endpoints may call on each other (Protocols); ``service``: listening,
connecting, authenticated calls and remote gateways; ``wire``: framing, secrets;
``event_loop``: the asyncio loop thread; ``serialized_throwable``: errors across processes.
"""

__all__: list[str] = []
