"""The CDK app: the stack plus cdk-nag's AwsSolutions checks, run on every synth.

Every finding is either fixed in the constructs or acknowledged in ``nag.py`` with the exact id
and a reason. ``build_app(nag=False)`` serves unit tests that assert on the template alone.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks

from infra.nag import acknowledge
from infra.stack import ArenaStack

STACK_NAME = "ForecasterArena"


# Feature flags the stack relies on (also in cdk.json, for the CLI): server access logs are
# granted by bucket policy rather than the legacy ACL.
FLAGS = {"@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy": True}


def build_app(
    *, nag: bool = True, context: dict[str, Any] | None = None, outdir: str | None = None
) -> tuple[App, ArenaStack]:
    app = App(context={**FLAGS, **(context or {})}, outdir=outdir)
    stack = ArenaStack(
        app, STACK_NAME, description="Forecaster Arena: LLM forecasting benchmark on Polymarket"
    )
    if nag:
        Validations.of(app).add_plugins(AwsSolutionsChecks(app))
        acknowledge(stack)
    return app, stack


def main() -> None:
    app, _ = build_app()
    app.synth()


if __name__ == "__main__":
    main()
