"""The worker: what runs after a hook has answered, detached from the host.

Kept empty on purpose: a hook's parent imports ``ovhooks.worker.detach`` alone, and importing
this package must not pull in the worker itself (``run``: state, queue, capture, backend).
"""
