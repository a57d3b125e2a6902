"""`arena demo`: the whole system simulated offline on embedded AWS (see runner.py)."""
