"""The synthesized template, built once per session (asset bundling skipped: no layer build)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template

from infra.app import build_app

FAST = {"aws:cdk:bundling-stacks": [], "arena:retryIntervalSeconds": 1}


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Template, dict[str, Any], Path]:
    outdir = tmp_path_factory.mktemp("cdk.out")
    app, stack = build_app(nag=True, context=FAST, outdir=str(outdir))
    app.synth()  # cdk-nag runs here: an unacknowledged finding fails the session
    path = outdir / f"{stack.stack_name}.template.json"
    return Template.from_json(json.loads(path.read_text())), json.loads(path.read_text()), path


@pytest.fixture(scope="session")
def template(synthesized: tuple[Template, dict[str, Any], Path]) -> Template:
    return synthesized[0]


@pytest.fixture(scope="session")
def raw(synthesized: tuple[Template, dict[str, Any], Path]) -> dict[str, Any]:
    return synthesized[1]
