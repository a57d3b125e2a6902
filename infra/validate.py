"""Validate a synthesized template: cfn-lint on it, asl-validator on the state machine, and the
cross-service rules a real account enforces (``infra/account_rules.py``).

The state machine's ``DefinitionString`` is an ``Fn::Join`` full of ``Fn::GetAtt``/``Ref``
tokens; they are resolved to concrete ARNs first (asl-validator does not catch unresolved
tokens). ``python -m infra.validate cdk.out/ForecasterArena.template.json`` runs all three and
exits non-zero on any finding (cfn-lint's W3005, redundant DependsOn emitted by CDK, is ignored).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from infra import account_rules

REGION, ACCOUNT = "us-east-1", "123456789012"
PSEUDO = {
    "AWS::Partition": "aws",
    "AWS::Region": REGION,
    "AWS::AccountId": ACCOUNT,
    "AWS::URLSuffix": "amazonaws.com",
}
ROOT = Path(__file__).resolve().parent.parent


def function_name(logical_id: str) -> str:
    """The name a resolved definition uses for a function (tests route on it)."""
    return logical_id


def resolve(value: Any, template: dict[str, Any]) -> Any:
    """Replace intrinsic functions with concrete values."""
    if isinstance(value, list):
        return [resolve(v, template) for v in value]
    if not isinstance(value, dict):
        return value
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(str(resolve(p, template)) for p in parts)
    if "Ref" in value:
        return PSEUDO.get(value["Ref"], value["Ref"])
    if "Fn::GetAtt" in value:
        logical, attribute = value["Fn::GetAtt"]
        kind = template["Resources"][logical]["Type"]
        if kind == "AWS::Lambda::Function" and attribute == "Arn":
            return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function_name(logical)}"
        return f"arn:aws:{kind.split('::')[1].lower()}:{REGION}:{ACCOUNT}:{logical}"
    return {k: resolve(v, template) for k, v in value.items()}


def state_machine_definition(template: dict[str, Any]) -> dict[str, Any]:
    (machine,) = [
        r for r in template["Resources"].values() if r["Type"] == "AWS::StepFunctions::StateMachine"
    ]
    definition: dict[str, Any] = json.loads(
        resolve(machine["Properties"]["DefinitionString"], template)
    )
    return definition


def run_cfn_lint(template_path: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("cfn-lint")
    return subprocess.run(
        [str(lint), "--ignore-checks", "W3005", "--", str(template_path)],
        capture_output=True,
        text=True,
        check=False,
    )


def run_asl_validator(definition: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(definition, handle)
    binary = ROOT / "node_modules" / ".bin" / "asl-validator"
    return subprocess.run(
        [str(binary), "--json-path", handle.name], capture_output=True, text=True, check=False
    )


def main(template_path: str) -> int:
    path = Path(template_path)
    lint = run_cfn_lint(path)
    print(f"cfn-lint (W3005 ignored): {'ok' if lint.returncode == 0 else 'FAILED'}")
    if lint.stdout.strip():
        print(lint.stdout)
    template = json.loads(path.read_text())
    asl = run_asl_validator(state_machine_definition(template))
    verdict = "ok" if asl.returncode == 0 else "FAILED"
    print(f"asl-validator: {verdict} {asl.stdout.strip()} {asl.stderr.strip()}")
    found = account_rules.findings(template)
    print(f"account rules ({len(account_rules.RULES)}): {'ok' if not found else 'FAILED'}")
    for finding in found:
        print(f"  {finding}")
    return 1 if lint.returncode or asl.returncode or found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "cdk.out/ForecasterArena.template.json"))
