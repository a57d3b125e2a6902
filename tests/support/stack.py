"""A "deployed" stack on embedded AWS: a CloudFormation stack whose outputs name resources
created here, which is how the ``arena`` operator commands find them."""

from __future__ import annotations

import json

import boto3

from arena_core.adapters.dynamodb import create_table_kwargs

STACK = "ForecasterArena"
TABLE = "arena-deployed"


def create_stack(outputs: dict[str, str], name: str = STACK) -> None:
    template = {
        "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {key: {"Value": value} for key, value in outputs.items()},
    }
    boto3.client("cloudformation").create_stack(StackName=name, TemplateBody=json.dumps(template))


def create_table(name: str = TABLE) -> str:
    boto3.client("dynamodb").create_table(**create_table_kwargs(name))
    return name
