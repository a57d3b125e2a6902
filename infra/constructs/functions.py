"""The Lambda functions: thin handlers on the arena_core layer, Python 3.12 on arm64.

Sizing (memory, timeout) and why:
- open_cohort 256 MB / 30 s: one transaction.
- prepare 512 MB / 2 min: five Gamma pages for the 500-market universe, written once to S3.
- decide 512 MB / 14 min: one agent; up to three replies from a model, each bounded at 240 s;
  the claim lease (15 min) outlives the function, so a live run is never taken over.
- finalize 1024 MB / 5 min: marks every active portfolio and makes the weekly publication
  (everything, the dataset's zip included) once a week.
- snapshot 768 MB / 5 min: marks every active portfolio every 10 minutes and publishes what the
  tick calls for. A pass waits on DynamoDB, Polymarket and S3 far more than it computes, and a
  second of waiting is billed by the memory configured: 768 MB rather than 1024 cuts a quarter
  of the wait's cost; the CPU's costs the same (below 1,769 MB, more memory buys a
  proportionally larger CPU share). The largest need is the daily publication's, after a year
  of cohorts (`bench/bench_publication_memory.py`, 47 completed weeks and 5 live): a peak of
  325 MB of Python allocations over the 70 MB the imports take, and at most 15 s of CPU here
  (untraced, the embedded AWS's own work included): about a minute on Graviton at 768 MB's CPU
  share. The peak grows with the history: re-run the bench with `--history-weeks` as the
  seasons accumulate, and raise this before it nears the memory configured.
- resolve 512 MB / 5 min: batched market fetch and one transaction per settled position.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from arena_core.constants import SERVICE_NAME

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"


@dataclass(frozen=True)
class Spec:
    folder: str
    handler: str
    memory: int
    timeout: Duration
    description: str


SPECS = {
    "OpenCohort": Spec(
        "open_cohort", "handler.handler", 256, Duration.seconds(30), "Opens the week's cohort"
    ),
    "Prepare": Spec(
        "decide",
        "handler.prepare",
        512,
        Duration.minutes(2),
        "Picks the agents and captures the market universe",
    ),
    "Decide": Spec(
        "decide", "handler.decide", 512, Duration.minutes(14), "One agent's weekly decision"
    ),
    "Finalize": Spec(
        "decide",
        "handler.finalize",
        1024,
        Duration.minutes(5),
        "Snapshot and site after a decision run",
    ),
    "Snapshot": Spec(
        "snapshot",
        "handler.handler",
        768,
        Duration.minutes(5),
        "Marks portfolios every 10 minutes and publishes the site",
    ),
    "Resolve": Spec(
        "resolve", "handler.handler", 512, Duration.minutes(5), "Settles resolved markets hourly"
    ),
}


class Functions(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        layer: lambda_.ILayerVersion,
        architecture: lambda_.Architecture,
        environment: dict[str, str],
    ) -> None:
        super().__init__(scope, construct_id)
        self.by_name: dict[str, lambda_.Function] = {}
        for name, spec in SPECS.items():
            log_group = logs.LogGroup(
                self, f"{name}Logs", retention=logs.RetentionDays.THREE_MONTHS
            )
            self.by_name[name] = lambda_.Function(
                self,
                name,
                runtime=lambda_.Runtime.PYTHON_3_12,
                architecture=architecture,
                code=lambda_.Code.from_asset(
                    str(FUNCTIONS / spec.folder), exclude=["__pycache__", "*.pyc"]
                ),
                handler=spec.handler,
                layers=[layer],
                memory_size=spec.memory,
                timeout=spec.timeout,
                description=spec.description,
                tracing=lambda_.Tracing.ACTIVE,
                log_group=log_group,
                environment={
                    **environment,
                    "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
                },
            )

    def __getitem__(self, name: str) -> lambda_.Function:
        return self.by_name[name]
