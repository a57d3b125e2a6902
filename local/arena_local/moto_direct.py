"""moto's DynamoDB without the HTTP round trip: the demo's client for its table.

Through boto3, each request of the demo's stores took five walks over its data: botocore
serialized it by the operation's shape, moto's stubber rebuilt it as an HTTP request
(werkzeug), parsed the parameters back from JSON by the shape, serialized its answer, and
botocore parsed that by the shape again. For DynamoDB's JSON protocol every walk hands back
what it was given (attribute values are JSON already); together they were about two fifths of
a simulated week's CPU, more than moto's DynamoDB itself.

``DirectDynamoDB`` gives the data-plane requests (reads, writes, batches, transactions) to
moto's own request handler (``DynamoHandler``: its validation, expression parsing and backend,
everything that decides an answer) as the JSON-decoded parameters moto would have parsed, and
returns its answer as botocore would have parsed it. An error is serialized by moto and parsed
by botocore exactly as on the HTTP path, so the same ``ClientError`` (code, message,
cancellation reasons, the old item) reaches the stores. Every other operation (creating the
table, describing it) goes through the boto3 client it wraps. Neither side validates: the demo's
client already skipped botocore's parameter validation; the tests' stores keep it (they use
boto3's client), and tests/infra/test_moto_direct.py compares the two paths' answers.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import ClientError
from botocore.parsers import create_parser
from moto.core.exceptions import ServiceException
from moto.core.responses import ActionResult
from moto.dynamodb.responses import DynamoHandler
from werkzeug.exceptions import HTTPException

# The operations answered directly, by their boto3 method names (moto's handler methods).
DATA_PLANE = frozenset(
    {
        "get_item",
        "put_item",
        "update_item",
        "delete_item",
        "query",
        "scan",
        "batch_get_item",
        "batch_write_item",
        "transact_get_items",
        "transact_write_items",
    }
)

TARGET_PREFIX = "DynamoDB_20120810"  # the X-Amz-Target header's, which names the action
# What botocore adds to an answer, as far as the direct path knows it (no HTTP headers).
METADATA = {"HTTPStatusCode": 200, "RetryAttempts": 0}


class DirectDynamoDB:
    """A DynamoDB client on moto's backend for the account and region of ``table_arn``."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._client = client
        arn = str(client.describe_table(TableName=table_name)["Table"]["TableArn"])
        # arn:aws:dynamodb:<region>:<account>:table/<name>: where moto keeps this table
        self._region, self._account = arn.split(":")[3:5]
        self._service = client.meta.service_model
        self._parser = create_parser(self._service.metadata["protocol"])
        self.meta = client.meta
        self.direct = True

    @contextmanager
    def through_boto3(self) -> Iterator[None]:
        """Every request through the boto3 client while inside: what watches botocore's
        requests (the cost model's meter) sees them all, and moto answers on its HTTP path."""
        self.direct = False
        try:
            yield
        finally:
            self.direct = True

    def __getattr__(self, name: str) -> Any:
        if name not in DATA_PLANE:
            return getattr(self._client, name)

        def call(**kwargs: Any) -> dict[str, Any]:
            if not self.direct:  # read at each call: a method kept by a store follows too
                answer: dict[str, Any] = getattr(self._client, name)(**kwargs)
                return answer
            return self._call(name, kwargs)

        return call

    def _handler(self, name: str, parameters: dict[str, Any]) -> DynamoHandler:
        """moto's handler as its HTTP path leaves it for an action: the parsed parameters,
        the region and the account (nothing else is read by its data-plane actions)."""
        handler = DynamoHandler()
        handler.params = parameters
        handler.body = parameters
        handler.uri_match = {}
        handler.region = self._region
        handler.current_account = self._account
        handler.querystring = {}
        handler.headers = {"X-Amz-Target": f"{TARGET_PREFIX}.{_operation_name(name)}"}
        handler.response_headers = {}
        return handler

    def _call(self, name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        # What moto would parse from the wire: a copy in plain JSON types (moto may keep
        # references to what it is given; the caller may reuse its dicts).
        parameters = json.loads(json.dumps(kwargs, default=_blob))
        handler = self._handler(name, parameters)
        operation = self._service.operation_model(_operation_name(name))
        try:
            result = getattr(handler, name)()
        except ServiceException as error:
            status, headers, body = _serialized(handler, ActionResult(error))
            raise self._error(operation, status, headers, body) from None
        except HTTPException as error:  # moto's JsonRESTError: its body is the wire's
            headers = dict(error.get_headers() or [])
            raise self._error(operation, error.code or 400, headers, error.description) from None
        return _answer(handler, operation, result)

    def _error(
        self, operation: Any, status: int, headers: dict[str, Any], body: Any
    ) -> ClientError:
        """The error botocore raises for this response (its parser, its exception class)."""
        response = {
            "status_code": status,
            "headers": headers,
            "body": body.encode() if isinstance(body, str) else body,
        }
        parsed = self._parser.parse(response, operation.output_shape)
        code = parsed.get("Error", {}).get("Code")
        modeled = self._service.shape_for_error_code(code) if code else None
        if modeled is not None:  # the error's own members (the old item, the reasons)
            parsed.update(self._parser.parse(response, modeled))
        error_class = self._client.exceptions.from_code(code)
        error: ClientError = error_class(parsed, operation.name)
        return error


def _operation_name(method: str) -> str:
    return "".join(part.title() for part in method.split("_"))


def _serialized(handler: DynamoHandler, result: ActionResult) -> Any:
    """(status, headers, body) as moto's HTTP path serializes ``result`` (an answer JSON
    cannot carry, or an error)."""
    return handler.serialized(result)


def _answer(handler: DynamoHandler, operation: Any, result: Any) -> dict[str, Any]:
    """The action's answer as botocore parses it: its JSON, without the members that are
    ``None`` (moto's "none", which the wire omits) or that the operation's output does not
    have (moto's extras, which botocore drops), and the metadata of a successful call."""
    value = result.result if isinstance(result, ActionResult) else None
    if isinstance(value, dict):
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            pass  # not plain JSON (dates, bytes): moto's serializer and botocore's parser
        else:
            # binary values travel base64-encoded; botocore hands them back as bytes
            hook = _binary if '"B' in text else None
            answer: dict[str, Any] = json.loads(text, object_hook=hook)
            members = operation.output_shape.members
            answer = {k: v for k, v in answer.items() if v is not None and k in members}
            return answer | {"ResponseMetadata": dict(METADATA)}
    status, headers, body = _serialized(handler, result)
    parser = create_parser(operation.service_model.metadata["protocol"])
    response = {"status_code": status, "headers": headers, "body": body.encode()}
    parsed: dict[str, Any] = parser.parse(response, operation.output_shape)
    return parsed | {"ResponseMetadata": dict(METADATA)}


def _blob(value: Any) -> str:
    """A blob as botocore serializes it (base64); nothing else but JSON is sent."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _binary(value: dict[str, Any]) -> dict[str, Any]:
    """A binary attribute value (``{"B": text}``, ``{"BS": [text]}``) decoded as botocore
    decodes blobs; any other object as it is (a map's values are attribute values, never
    bare text, so only an attribute value can be a one-key object holding text)."""
    if len(value) == 1:
        ((kind, member),) = value.items()
        if kind == "B" and isinstance(member, str):
            return {kind: base64.b64decode(member)}
        if kind == "BS" and isinstance(member, list) and all(isinstance(m, str) for m in member):
            return {kind: [base64.b64decode(m) for m in member]}
    return value
