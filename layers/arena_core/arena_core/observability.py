"""Powertools Logger, Tracer and Metrics shared by every handler (one instance per process)."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="forecaster-arena")
tracer = Tracer(service="forecaster-arena")
metrics = Metrics(namespace="ForecasterArena", service="forecaster-arena")
