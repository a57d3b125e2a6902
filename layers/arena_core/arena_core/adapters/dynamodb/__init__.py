"""The store roles on one DynamoDB table (see ACCESS_PATTERNS.md beside this file)."""

from arena_core.adapters.dynamodb.schema import TABLE_SCHEMA, create_table_kwargs
from arena_core.adapters.dynamodb.stores import dynamo_stores

__all__ = ["TABLE_SCHEMA", "create_table_kwargs", "dynamo_stores"]
