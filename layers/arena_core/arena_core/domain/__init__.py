"""Pure domain of the benchmark: models, rules, accounting. No I/O, no clock, no environment."""
