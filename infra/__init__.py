"""The CDK app of Forecaster Arena.

jsii (which runs the CDK's JavaScript for Python) starts the ``node`` on PATH, which may be an
end-of-life Node.js (20) that makes jsii print a large banner on every synth. When the
repository's own Node (the npm ``node`` package pinned in package.json, installed by ``npm
ci``) is there, jsii uses it instead: every synth, in tests, the demo and ``cdk``, then runs on
a supported Node. ``JSII_NODE`` set by the caller wins.
"""

from __future__ import annotations

import os
from pathlib import Path

NODE = Path(__file__).resolve().parents[1] / "node_modules" / ".bin" / "node"

if NODE.is_file() and "JSII_NODE" not in os.environ:
    os.environ["JSII_NODE"] = str(NODE)
