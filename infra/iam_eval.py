"""Whether a policy lets a request through, read as IAM reads it: every statement that applies
(principal, action or NotAction, resource or NotResource, every condition), an explicit Deny
over any Allow, nothing allowed by default.

The account rules (``account_rules.py``) ask it whether a service may publish to a topic, a
role may send to a queue, CloudFront may read a bucket. Reading Allow statements alone missed a
break written as a Deny, an Allow under a condition the request does not meet, or an Allow on
another resource. Values in a template are intrinsic functions; both sides of every comparison
(the statement's and the request's) are resolved the same way (``value``), so an ARN built with
``Fn::Join`` compares with one read through ``Fn::GetAtt``.

Conditions: the String, Arn and Bool operators, ``Null``, each with ``IfExists``; an operator
it does not know is never met by an Allow and always met by a Deny (what cannot be proved is not
granted).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

REGION, ACCOUNT = "us-east-1", "123456789012"
PSEUDO = {
    "AWS::Partition": "aws",
    "AWS::Region": REGION,
    "AWS::AccountId": ACCOUNT,
    "AWS::URLSuffix": "amazonaws.com",
}
# Resources whose Ref is their ARN (the others' Ref is a name or a URL).
REF_IS_ARN = frozenset({"AWS::SNS::Topic", "AWS::StepFunctions::StateMachine"})
ARN_FORMS = {
    "AWS::Lambda::Function": "arn:aws:lambda:{region}:{account}:function:{id}",
    "AWS::S3::Bucket": "arn:aws:s3:::{id}",
    "AWS::SNS::Topic": "arn:aws:sns:{region}:{account}:{id}",
    "AWS::SQS::Queue": "arn:aws:sqs:{region}:{account}:{id}",
    "AWS::StepFunctions::StateMachine": "arn:aws:states:{region}:{account}:stateMachine:{id}",
}


def arn(template: Mapping[str, Any], logical_id: str) -> str:
    """The ARN of a resource of the template, in the one form ``value`` gives it."""
    kind = template["Resources"][logical_id]["Type"]
    default = f"arn:aws:{kind.split('::')[1].lower()}:{{region}}:{{account}}:{{id}}"
    return ARN_FORMS.get(kind, default).format(region=REGION, account=ACCOUNT, id=logical_id)


def value(item: Any, template: Mapping[str, Any]) -> Any:
    """``item`` with its intrinsic functions resolved (Ref, Fn::GetAtt, Fn::Join, Fn::Sub's
    plain form); an attribute other than an ARN resolves to ``<id>.<attribute>``."""
    if isinstance(item, list):
        return [value(v, template) for v in item]
    if not isinstance(item, dict):
        return item
    resources = template.get("Resources", {})
    if "Ref" in item:
        ref = item["Ref"]
        if ref in PSEUDO:
            return PSEUDO[ref]
        if ref in resources and resources[ref]["Type"] in REF_IS_ARN:
            return arn(template, ref)
        return ref
    if "Fn::GetAtt" in item:
        logical, attribute = item["Fn::GetAtt"][:2]
        if attribute == "Arn" and logical in resources:
            return arn(template, logical)
        return f"{logical}.{attribute}"
    if "Fn::Join" in item:
        separator, parts = item["Fn::Join"]
        return str(separator).join(str(value(p, template)) for p in parts)
    return {k: value(v, template) for k, v in item.items()}


def _listed(item: Any) -> list[Any]:
    return item if isinstance(item, list) else [item]


def _like(text: str, pattern: str) -> bool:
    """IAM's wildcards (``*`` and ``?``), nothing else special."""
    escaped = pattern.replace("[", "[[]")
    return fnmatch.fnmatchcase(text, escaped)


@dataclass(frozen=True)
class Request:
    """What is asked: by whom (a service principal; None for a role's own policies), which
    action, on which resource (an ARN), with which context keys (``aws:SourceArn``...)."""

    action: str
    resource: str
    principal: str | None = None
    context: Mapping[str, str] = field(default_factory=dict)


def _principal_matches(statement: Mapping[str, Any], request: Request) -> bool:
    if request.principal is None:  # an identity policy: the role is the principal
        return "Principal" not in statement and "NotPrincipal" not in statement
    if "NotPrincipal" in statement:
        return request.principal not in _principal_names(statement["NotPrincipal"])
    return request.principal in _principal_names(statement.get("Principal", {}))


def _principal_names(principal: Any) -> set[str]:
    """Every principal a Principal element names (``"*"`` and ``{"AWS": "*"}``: everyone)."""
    if principal == "*":
        return {"*"}
    return {str(v) for values in dict(principal).values() for v in _listed(values)}


def _principal_in(statement: Mapping[str, Any], request: Request) -> bool:
    if request.principal is not None and "*" in _principal_names(statement.get("Principal", {})):
        return True
    return _principal_matches(statement, request)


def _action_matches(statement: Mapping[str, Any], action: str) -> bool:
    def any_of(patterns: Any) -> bool:
        return any(_like(action.lower(), str(p).lower()) for p in _listed(patterns))

    if "NotAction" in statement:
        return not any_of(statement["NotAction"])
    return any_of(statement.get("Action", []))


def _resource_matches(statement: Mapping[str, Any], resource: str) -> bool:
    def any_of(patterns: Any) -> bool:
        return any(_like(resource, str(p)) for p in _listed(patterns))

    if "NotResource" in statement:
        return not any_of(statement["NotResource"])
    return any_of(statement.get("Resource", "*"))


STRING_TESTS = {
    "StringEquals": lambda v, p: v == p,
    "StringLike": _like,
    "ArnEquals": lambda v, p: v == p,
    "ArnLike": _like,
    "StringEqualsIgnoreCase": lambda v, p: v.lower() == p.lower(),
}
NEGATED = {
    "StringNotEquals": "StringEquals",
    "StringNotLike": "StringLike",
    "ArnNotEquals": "ArnEquals",
    "ArnNotLike": "ArnLike",
    "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
}


def _condition_met(operator: str, key: str, expected: Any, context: Mapping[str, str]) -> bool:
    """One operator on one key; None when the operator is unknown."""
    if_exists = operator.endswith("IfExists")
    base = operator.removesuffix("IfExists")
    key = key.lower()  # condition keys are case-insensitive (aws:SourceArn, AWS:SourceArn)
    present = key in context
    if base == "Null":  # "true": the key must be absent
        return any(str(e).lower() == str(not present).lower() for e in _listed(expected))
    if not present:
        return if_exists or base in NEGATED
    actual = context[key]
    if base == "Bool":
        return any(str(e).lower() == actual.lower() for e in _listed(expected))
    if base in STRING_TESTS:
        return any(STRING_TESTS[base](actual, str(e)) for e in _listed(expected))
    if base in NEGATED:
        return not any(STRING_TESTS[NEGATED[base]](actual, str(e)) for e in _listed(expected))
    raise KeyError(operator)


def _conditions_met(statement: Mapping[str, Any], request: Request, *, deny: bool) -> bool:
    context = {k.lower(): v for k, v in request.context.items()}
    for operator, tests in dict(statement.get("Condition", {})).items():
        for key, expected in dict(tests).items():
            try:
                if not _condition_met(operator, key, expected, context):
                    return False
            except KeyError:  # an operator not read here: proves nothing
                if not deny:
                    return False
    return True


def applies(statement: Mapping[str, Any], request: Request) -> bool:
    """Whether the statement (resolved) speaks to the request: principal, action, resource
    and every condition."""
    deny = statement.get("Effect") == "Deny"
    return (
        _principal_in(statement, request)
        and _action_matches(statement, request.action)
        and _resource_matches(statement, request.resource)
        and _conditions_met(statement, request, deny=deny)
    )


def permitted(statements: Iterable[Mapping[str, Any]], request: Request) -> bool:
    """IAM's verdict over the statements (resolved): allowed by one that applies, and denied
    by none that applies."""
    found = [s for s in statements if applies(s, request)]
    if any(s.get("Effect") == "Deny" for s in found):
        return False
    return any(s.get("Effect") == "Allow" for s in found)


def resolved(statements: Iterable[Any], template: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The statements with every intrinsic resolved (``value``)."""
    found: list[dict[str, Any]] = json.loads(json.dumps(value(list(statements), template)))
    return found
