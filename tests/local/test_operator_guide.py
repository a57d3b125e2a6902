"""The README's operator guide is the operator's only guide: its steps come in the order a new
account needs them, and every command it shows exists with the options shown. ``arena``
commands are parsed by the ``arena`` parser itself; ``make`` targets are the Makefile's; ``npx
cdk`` context keys are ones the CDK app reads; ``aws`` commands are operations of the AWS CLI's
service models (botocore's), each option a member of the operation's input or a global option.
"""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

import botocore.session
import pytest
from botocore import xform_name

from arena_local.cli import parser
from tests.conftest import ROOT

GUIDE = "## Deploy: the operator's guide"
STEPS = (
    "The region",
    "The quotas to check",
    "Set the key",
    "Deploy",
    "Confirm the subscription",
    "Smoke test",
    "Alerts, and the dead-letter queue",
    "What the bill will be",
    "What teardown leaves",
)
CDK_COMMANDS = {"bootstrap", "deploy", "destroy", "synth", "diff"}
AWS_GLOBAL = {"--query", "--output", "--region", "--profile", "--cli-binary-format"}
AWS_CUSTOM = {("configure", "set")}  # the CLI's own commands, not a service's operations


def guide() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(GUIDE)
    end = min(text.find(mark, start + len(GUIDE)) % (len(text) + 1) for mark in ("\n## ", "\n### "))
    return text[start:end]


def commands(section: str) -> list[list[str]]:
    found = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL):
        for raw in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", raw).strip()
            if line:
                found.append(shlex.split(line))
    return found


def context_keys() -> set[str]:
    """Every ``arena:`` context key the CDK app reads."""
    found: set[str] = set()
    for path in (ROOT / "infra").rglob("*.py"):
        found |= set(re.findall(r'"(arena:[A-Za-z]+)"', path.read_text()))
    return found


def make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), flags=re.M))


def check_arena(words: list[str]) -> None:
    arena = parser()
    subcommands = next(a for a in arena._actions if a.dest == "command")
    sub = subcommands.choices[words[0]]  # type: ignore[index]
    for word in words:
        if word.startswith("--"):
            assert word.split("=")[0] in sub._option_string_actions, f"arena {words[0]} {word}"
    arena.parse_args(words)  # the values parse too (a SystemExit fails the test)


def check_cdk(words: list[str]) -> None:
    assert words[0] in CDK_COMMANDS, words
    keys = context_keys()
    for flag, value in itertools.pairwise(words):
        if flag == "-c":
            assert value.split("=")[0] in keys, f"no context key {value}"


def check_aws(words: list[str]) -> None:
    if tuple(words[:2]) in AWS_CUSTOM:
        return
    session = botocore.session.get_session()
    model = session.get_service_model(words[0])
    operations = {xform_name(name, "-"): name for name in model.operation_names}
    assert words[1] in operations, f"aws {words[0]} has no {words[1]}"
    shape = model.operation_model(operations[words[1]]).input_shape
    members = shape.members if shape is not None else {}
    options = {f"--{xform_name(name, '-')}" for name in members}
    for word in words[2:]:
        if word.startswith("--"):
            assert word in options | AWS_GLOBAL, f"aws {words[0]} {words[1]} has no {word}"


def check(words: list[str]) -> None:
    if words[0] == ".venv/bin/arena":
        check_arena(words[1:])
    elif words[0] == "make":
        assert words[1] in make_targets(), words
    elif words[:2] == ["npx", "cdk"]:
        check_cdk(words[2:])
    elif words[0] == "aws":
        check_aws(words[1:])
    else:
        raise AssertionError(f"the guide shows a command no check knows: {words}")


def test_the_guide_takes_the_operator_through_the_steps_in_order() -> None:
    section = guide()
    positions = [section.index(f". {step}") for step in STEPS]
    assert positions == sorted(positions)


def test_every_command_the_guide_shows_exists_with_those_options() -> None:
    shown = commands(guide())
    assert len(shown) >= 15
    kinds = {words[0] if words[0] != "npx" else "npx cdk" for words in shown}
    assert kinds == {".venv/bin/arena", "make", "npx cdk", "aws"}
    for words in shown:
        check(words)


@pytest.mark.parametrize(
    "line",
    [
        ".venv/bin/arena rerun --weeks 2026-03-01",  # a misspelled option
        ".venv/bin/arena smoke",  # a command arena does not have
        "make deploy",
        "npx cdk deploy -c arena:alarmMail=x@example.com",
        "aws sqs purge-queues --queue-url u",
        "aws sqs purge-queue --queue u",
        "kubectl apply -f x.yaml",
    ],
)
def test_the_checks_catch_what_does_not_exist(line: str) -> None:
    with pytest.raises((AssertionError, KeyError, SystemExit)):
        check(shlex.split(line))


def test_the_guide_file_is_the_readme() -> None:
    assert Path(ROOT / "README.md").is_file() and GUIDE in (ROOT / "README.md").read_text()
