"""EventBridge Scheduler in UTC: Sunday 00:00 open the cohort, Sunday 00:05 the decision run,
every 10 minutes a snapshot, hourly resolution (cadences from ``arena_core.constants``).
Retries with a bounded event age, and a dead-letter queue for deliveries that still fail.

The scheduler invokes a function asynchronously: a delivery succeeds once Lambda has queued the
event, and Lambda retries a failed invocation twice on its own. Each scheduled function
therefore sends an event that still fails (or expires) to the same dead-letter queue, an
on-failure destination: the queue alarms (``monitoring.py``), so no failure ends in a metric
that nobody watches."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_scheduler as scheduler
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from arena_core.constants import (
    DECISION_RUN_SCHEDULE,
    OPEN_COHORT_SCHEDULE,
    RESOLVE_SCHEDULE,
    SNAPSHOT_SCHEDULE,
)

LAMBDA_RETRIES = 2  # Lambda's own retries of a failed asynchronous invocation (its default)
SCHEDULES = {
    "OpenCohort": (OPEN_COHORT_SCHEDULE, "OpenCohort"),
    "DecisionRun": (DECISION_RUN_SCHEDULE, "workflow"),
    "Snapshot": (SNAPSHOT_SCHEDULE, "Snapshot"),
    "Resolve": (RESOLVE_SCHEDULE, "Resolve"),
}


class Schedules(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        functions: Mapping[str, lambda_.IFunction],
        state_machine: sfn.IStateMachine,
    ) -> None:
        super().__init__(scope, construct_id)
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            retention_period=Duration.days(14),
            enforce_ssl=True,
            encryption=sqs.QueueEncryption.SQS_MANAGED,
        )
        role = iam.Role(self, "Role", assumed_by=iam.ServicePrincipal("scheduler.amazonaws.com"))
        self.dead_letters.grant_send_messages(role)
        on_failure = destinations.SqsDestination(self.dead_letters)
        group = scheduler.CfnScheduleGroup(self, "Group")
        for name, (expression, target_name) in SCHEDULES.items():
            if target_name == "workflow":
                arn = state_machine.state_machine_arn
                state_machine.grant_start_execution(role)
                payload = "{}"  # the run's concurrency: the deployment's ARENA_RUN_CONCURRENCY
            else:
                function = functions[target_name]
                arn = function.function_arn
                function.grant_invoke(role)
                function.configure_async_invoke(
                    on_failure=on_failure, retry_attempts=LAMBDA_RETRIES
                )
                payload = '{"source": "schedule"}'
            scheduler.CfnSchedule(
                self,
                name,
                group_name=group.ref,
                schedule_expression=expression,
                schedule_expression_timezone="UTC",
                flexible_time_window=scheduler.CfnSchedule.FlexibleTimeWindowProperty(mode="OFF"),
                target=scheduler.CfnSchedule.TargetProperty(
                    arn=arn,
                    role_arn=role.role_arn,
                    input=payload,
                    retry_policy=scheduler.CfnSchedule.RetryPolicyProperty(
                        maximum_event_age_in_seconds=600, maximum_retry_attempts=3
                    ),
                    dead_letter_config=scheduler.CfnSchedule.DeadLetterConfigProperty(
                        arn=self.dead_letters.queue_arn
                    ),
                ),
            )
