"""Lambda's lines: requests, GB-seconds per function (a deployed function's seconds, from the
sample's), and the INIT of cold starts. CPU is measured on this machine (x86); the functions run
on Graviton (arm64), so every CPU-derived quantity is a range: the CPU part times
``arm64_cpu_factor`` (a stated assumption, in the price table), the waits unchanged."""

from __future__ import annotations

import math
from typing import Any

from arena_core.adapters.polymarket import GammaMarketSource
from arena_local.cost.meter import Usage
from arena_local.cost.model import PUBLISHER, Line, functions
from arena_local.cost.steady import Measured

# Functions whose upstream requests are batches of markets by id, fetched in parallel (the
# client's own concurrency): a pass waits for rounds of them, not for each in turn. Prepare's
# pages of the top markets are fetched one after another.
BATCHED_UPSTREAM = frozenset({"Snapshot", "Resolve", "Finalize"})
BATCH_CONCURRENCY = int((GammaMarketSource.__init__.__kwdefaults__ or {})["concurrency"])


def upstream_rounds(requests: float, calls: int, parallel: int) -> float:
    """Rounds of upstream requests over ``calls`` invocations: each invocation's requests
    ``parallel`` at a time."""
    per_call = requests / max(calls, 1)
    return calls * math.ceil(per_call / parallel) if per_call else 0.0


def lambda_seconds(
    usage: Usage,
    memory: int,
    assumed: dict[str, Any],
    cpu_factor: float = 1.0,
    *,
    parallel: int = 1,
) -> float:
    """Seconds a deployed function would be billed per occurrence: the CPU the sample measured
    on a whole core (times ``cpu_factor``: Graviton against this machine), at the share of a
    vCPU the memory buys (a whole one at 1,769 MB), plus the waits an in-process run does not
    have: each DynamoDB and S3 request and each round of upstream requests over the internet
    (``parallel`` at a time; a model's reply is counted apart)."""
    calls = max(usage.invocations, 1)
    share = min(1.0, memory / float(assumed["lambda_full_vcpu_mb"]))
    dynamodb = sum(c for op, c in usage.requests.items() if op.startswith("dynamodb:"))
    s3 = sum(c for op, c in usage.requests.items() if op.startswith("s3:"))
    s3 += usage.site_uploads + usage.site_reads
    upstream = sum(
        c for op, c in usage.requests.items() if op.startswith("http:") and not _local(op)
    )
    waits = (
        dynamodb * float(assumed["dynamodb_request_seconds"])
        + s3 * float(assumed["s3_request_seconds"])
        + upstream_rounds(upstream, calls, parallel) * float(assumed["upstream_request_seconds"])
    )
    cpu = max(usage.seconds, 0.0)  # the meter's own time left out can leave a tiny one below 0
    return float((cpu * cpu_factor / share + waits) / calls)


def _local(operation: str) -> bool:
    """The stand-ins' server on loopback: a model's reply, assumed apart (llm_reply_seconds)."""
    return operation.removeprefix("http:") in {"127.0.0.1", "localhost"}


def lambda_lines(
    template: dict[str, Any], measured: Measured, prices: dict[str, Any], n: dict[str, float]
) -> list[Line]:
    """Requests and GB-seconds per function (its publications' seconds with it, a model's
    reply time with Decide), and INIT: every invocation assumed cold (idle execution
    environments have been observed recycled after about ten minutes; each function runs every
    ten minutes or less often), billed for its measured import time plus the runtime's start."""
    assumed = prices["assumptions"]
    factors = assumed["arm64_cpu_factor"]
    lines, init = [], 0.0
    for name, (memory, arch) in sorted(functions(template).items()):
        seconds, slow = (
            function_seconds(
                name, memory, measured=measured, assumed=assumed, n=n, cpu_factor=factor
            )
            for factor in factors
        )
        price = prices[f"lambda_{arch}_gb_second"]
        lines.append(
            Line(
                "Lambda",
                f"{name} requests",
                n[name],
                "requests",
                prices["lambda_request"],
                "lambda_requests",
            )
        )
        lines.append(
            Line(
                "Lambda",
                f"{name} compute ({memory} MB {arch})",
                seconds * memory / 1024,
                "GB-s",
                price,
                "lambda_gb_seconds",
                high=slow * memory / 1024,
            )
        )
        init += n[name] * measured.init_seconds.get(name, 0.0) * memory / 1024
    arch = next(iter(functions(template).values()))[1]
    lines.append(
        Line(
            "Lambda",
            "INIT of cold starts (every invocation)",
            init * factors[0],
            "GB-s",
            prices[f"lambda_{arch}_gb_second"],
            "lambda_gb_seconds",
            high=init * factors[1],
        )
    )
    return lines


def function_seconds(
    name: str,
    memory: int,
    *,
    measured: Measured,
    assumed: dict[str, Any],
    n: dict[str, float],
    cpu_factor: float,
) -> float:
    """A function's billed seconds per month, its publications' with it and, for Decide, the
    model's replies (the LLM agents' share of decisions)."""
    parallel = BATCH_CONCURRENCY if name in BATCHED_UPSTREAM else 1
    own = measured.usage.get(name, Usage())
    seconds = n[name] * lambda_seconds(own, memory, assumed, cpu_factor, parallel=parallel)
    if name == "Decide":
        llm = measured.llm_agents / measured.agents
        seconds += n[name] * llm * assumed["llm_reply_seconds"]
    for publication, publisher in PUBLISHER.items():
        if publisher == name:
            usage = measured.usage.get(publication, Usage())
            seconds += n.get(publication, 0.0) * lambda_seconds(usage, memory, assumed, cpu_factor)
    return seconds
