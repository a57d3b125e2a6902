"""The deployment's monthly cost: ``arena cost`` and ``bench/bench_cost.py``
(``main.cost_report``)."""
