"""The weekly decision state machine: Prepare → Map(Decide per agent) → Finalize.

Every payload, path and the Catch's record come from ``arena_core.workflow`` (the contract the
handlers parse), and the Retry list from the error hierarchy. The Map's concurrency comes from
Prepare's output: the input's ``max_concurrency`` (0 runs every agent at once), or the
deployment's ``ARENA_RUN_CONCURRENCY`` (``-c arena:runConcurrency``, default 5: a new account's
Lambda concurrency quota may be 10). Each Decide retries
transient errors (upstream timeouts and throttling, a claim still held by a crashed attempt,
Lambda service errors, a function that died or timed out) with backoff: a retry runs under the
same execution name, so it resumes its own claim; anything else is caught and recorded as that
agent's failure, so one failing agent never fails the others. Logging (ALL, with execution
data) and X-Ray tracing are on.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from arena_core.workflow import (
    FAILURE_PATH,
    ITEMS_PATH,
    MAX_CONCURRENCY_PATH,
    RESULTS_PATH,
    failure_parameters,
    finalize_payload,
    item_selector,
    retryable_errors,
)


class DecisionWorkflow(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        prepare: lambda_.IFunction,
        decide: lambda_.IFunction,
        finalize: lambda_.IFunction,
        retry_interval: Duration,
    ) -> None:
        super().__init__(scope, construct_id)
        prepare_step = tasks.LambdaInvoke(
            self,
            "Prepare",
            lambda_function=prepare,
            payload_response_only=True,
            retry_on_service_exceptions=False,
        )
        decide_step = tasks.LambdaInvoke(
            self,
            "Decide",
            lambda_function=decide,
            payload_response_only=True,
            retry_on_service_exceptions=False,
        )
        transient = retryable_errors()
        decide_step.add_retry(
            errors=transient, interval=retry_interval, max_attempts=3, backoff_rate=2
        )
        record_failure = sfn.Pass(self, "RecordFailure", parameters=failure_parameters())
        decide_step.add_catch(record_failure, errors=["States.ALL"], result_path=FAILURE_PATH)
        fan_out = sfn.Map(
            self,
            "DecideEachAgent",
            items_path=ITEMS_PATH,
            max_concurrency_path=MAX_CONCURRENCY_PATH,
            result_path=RESULTS_PATH,
            item_selector=item_selector(),
        )
        fan_out.item_processor(decide_step)
        finalize_step = tasks.LambdaInvoke(
            self,
            "Finalize",
            lambda_function=finalize,
            payload_response_only=True,
            retry_on_service_exceptions=False,
            payload=sfn.TaskInput.from_object(finalize_payload()),
        )
        finalize_step.add_retry(
            errors=transient, interval=retry_interval, max_attempts=2, backoff_rate=2
        )
        definition = prepare_step.next(fan_out).next(finalize_step)
        self.log_group = logs.LogGroup(self, "Logs", retention=logs.RetentionDays.THREE_MONTHS)
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            definition_body=sfn.DefinitionBody.from_chainable(definition),
            # 50 agents, 5 at a time, each up to a 14-minute Decide: 140 minutes at worst.
            timeout=Duration.hours(4),
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=True
            ),
        )
