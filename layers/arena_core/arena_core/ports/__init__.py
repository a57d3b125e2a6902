"""Ports: the abstract interfaces services depend on. Adapters and test fakes implement them."""
