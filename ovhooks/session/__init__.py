"""Session state: where everything lives under the state directory (``layout``), the session
documents (``store``), when sessions get committed (``lifecycle``) and what a commit became
(``commit_outcome``).

Kept empty on purpose: importing the package costs a hook nothing it does not use.
"""
