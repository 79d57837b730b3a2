"""The durable per-session queue (``queue``), its sending protocol (``send``) and the move of
an older ovhooks' queued files into it (``legacy``).

Kept empty on purpose: importing the package costs a hook nothing it does not use.
"""
