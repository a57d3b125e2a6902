"""The weekly decision state machine: Prepare → Map(Decide per agent) → Finalize.

The Map's concurrency comes from the input (``max_concurrency``; 0, the default, runs every agent
at once). Each Decide retries transient errors (upstream timeouts and throttling, a claim still
held by a crashed attempt, Lambda service errors, a function that died or timed out) with backoff:
a retry runs under the same execution name, so it resumes its own claim; anything else is caught and
recorded as that agent's failure, so one failing agent never fails the others. Logging (ALL,
with execution data) and X-Ray tracing are on.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

TRANSIENT_ERRORS = [
    "RetryableUpstreamError",
    "ClaimHeldError",
    "VersionConflictError",
    "PersistenceError",
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
    # The function died (runtime exit, out of memory) or hit its timeout: work is checkpointed
    # and every write is conditional, so running the step again finishes what was begun.
    "Runtime.ExitError",
    "Sandbox.Timedout",
    "Lambda.Unknown",
]


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
        decide_step.add_retry(
            errors=TRANSIENT_ERRORS, interval=retry_interval, max_attempts=3, backoff_rate=2
        )
        record_failure = sfn.Pass(
            self,
            "RecordFailure",
            parameters={
                "agent_id.$": "$.agent_id",
                "status": "failed",
                "error.$": "$.failure.Error",
                "cause.$": "$.failure.Cause",
            },
        )
        decide_step.add_catch(record_failure, errors=["States.ALL"], result_path="$.failure")
        fan_out = sfn.Map(
            self,
            "DecideEachAgent",
            items_path="$.items",
            max_concurrency_path="$.max_concurrency",
            result_path="$.results",
            item_selector={
                "agent_id.$": "$$.Map.Item.Value.agent_id",
                "run_at.$": "$$.Map.Item.Value.run_at",
                "universe_ref.$": "$$.Map.Item.Value.universe_ref",
                "execution_id.$": "$$.Execution.Name",
            },
        )
        fan_out.item_processor(decide_step)
        finalize_step = tasks.LambdaInvoke(
            self,
            "Finalize",
            lambda_function=finalize,
            payload_response_only=True,
            retry_on_service_exceptions=False,
            payload=sfn.TaskInput.from_object({"results.$": "$.results"}),
        )
        finalize_step.add_retry(
            errors=TRANSIENT_ERRORS, interval=retry_interval, max_attempts=2, backoff_rate=2
        )
        definition = prepare_step.next(fan_out).next(finalize_step)
        self.log_group = logs.LogGroup(self, "Logs", retention=logs.RetentionDays.THREE_MONTHS)
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            definition_body=sfn.DefinitionBody.from_chainable(definition),
            timeout=Duration.hours(2),
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=True
            ),
        )
