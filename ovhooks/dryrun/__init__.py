"""Dry runs: the plan of writes a hook would have made (``plan``) and the stand-ins that
record it instead of writing (``record``).

Kept empty on purpose: importing the package costs a hook nothing it does not use.
"""
