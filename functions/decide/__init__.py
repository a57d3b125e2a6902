"""Lambda function assets (see README.md)."""
