"""Human and agent commands: install, doctor, status, memory verbs, lifecycle, import, export.

Each command is a module-level function; ``ovhooks/cli.py`` wires them into the app. Heavy
dependencies (Rich) are imported only when a command runs. ``doctor`` and ``install`` are
packages: one check, or one host, per module.
"""
