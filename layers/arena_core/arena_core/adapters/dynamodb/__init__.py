"""The repository on one DynamoDB table (see ACCESS_PATTERNS.md beside this file)."""

from arena_core.adapters.dynamodb.repository import DynamoRepository
from arena_core.adapters.dynamodb.schema import TABLE_SCHEMA, create_table_kwargs

__all__ = ["TABLE_SCHEMA", "DynamoRepository", "create_table_kwargs"]
