"""Forecaster Arena's local harness: everything that runs the system off AWS.

The demo (the whole deployed system simulated on embedded AWS), the moto speed-ups and the
in-process workflow runner, in-memory stores, the seeded price simulation and the Gamma replay
transport, and the ``arena`` command. It may import ``arena_core`` and ``infra``; neither imports
it, and the Lambda layer never ships it.
"""
