"""Adapters: the ports implemented against real services (DynamoDB, S3, Polymarket, OpenRouter).

Each takes its client (boto3, httpx) injected and translates failures into ``ArenaError``s.
"""
