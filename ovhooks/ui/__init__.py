"""``ovhooks ui``: a local viewer of what the agents remember, and why (never imported by a hook).

``ovhooks.ui.command`` starts it; ``guard`` decides who may talk to it (pure), ``server``
serves it on loopback, ``pages`` gathers what each page shows from the backend and the state
dir, ``memories`` lists and edits memories on either backend, ``trash`` keeps what was
forgotten for the undo window.
"""
