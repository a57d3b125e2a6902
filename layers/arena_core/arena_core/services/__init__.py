"""Use cases, one module each; they take ports as parameters and hold no I/O of their own."""
