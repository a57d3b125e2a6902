"""The CDK app of Forecaster Arena."""
