"""Agents behind the ``ForecastAgent`` port: the LLM agent and the baselines."""
