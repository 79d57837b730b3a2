"""Settings: the one object resolved per process (``config``) and the files it may come from
(``files``).

Kept empty on purpose: importing the package costs a hook nothing it does not use.
"""
