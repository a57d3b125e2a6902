"""The CDK app: the stack plus cdk-nag's AwsSolutions checks, run on every synth.

Every finding is either fixed in the constructs or acknowledged in ``nag.py`` with the exact id
and a reason. ``build_app(nag=False)`` serves unit tests that assert on the template alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aws_cdk import App, Validations
from cdk_nag import AwsSolutionsChecks

from infra.nag import acknowledge
from infra.stack import ArenaStack

STACK_NAME = "ForecasterArena"


CDK_JSON = Path(__file__).resolve().parents[1] / "cdk.json"


def feature_flags() -> dict[str, Any]:
    """The feature flags of cdk.json: the recommended flags of the pinned aws-cdk-lib (its
    recommended-feature-flags.json) and server access logs granted by bucket policy. The CLI
    passes them to the app; tests and the demo build the app here with the same flags, so
    every synth produces the same template."""
    context: dict[str, Any] = json.loads(CDK_JSON.read_text())["context"]
    return {key: value for key, value in context.items() if key.startswith("@aws-cdk")}


def build_app(
    *, nag: bool = True, context: dict[str, Any] | None = None, outdir: str | None = None
) -> tuple[App, ArenaStack]:
    app = App(context={**feature_flags(), **(context or {})}, outdir=outdir)
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
