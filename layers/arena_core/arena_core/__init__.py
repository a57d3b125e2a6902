"""Forecaster Arena core library.

``domain`` and ``scoring`` are pure (no I/O); services, adapters and site rendering build on them.
"""

__version__ = "0.1.0"
