"""Alarms to an SNS topic (optional e-mail subscription) and a dashboard.

Alarms: failed or timed-out decision runs, errors of any function, messages in the schedules'
dead-letter queue, and no snapshot for 30 minutes (the snapshot handler's EMF metric, with
missing data treated as breaching: silence is the failure).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from arena_core.constants import METRICS_NAMESPACE, SERVICE_NAME, SNAPSHOT_SILENCE, Metric


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        functions: dict[str, lambda_.Function],
        state_machine: sfn.StateMachine,
        dead_letters: sqs.IQueue,
        alarm_email: str | None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(
            self,
            "Alarms",
            enforce_ssl=True,
            master_key=kms.Alias.from_alias_name(self, "SnsKey", "alias/aws/sns"),
        )
        if alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(alarm_email))
        five = Duration.minutes(5)
        alarms = {
            "RunFailed": state_machine.metric_failed(period=five),
            "RunTimedOut": state_machine.metric_timed_out(period=five),
            "DeadLetters": dead_letters.metric_approximate_number_of_messages_visible(period=five),
            **{f"{name}Errors": fn.metric_errors(period=five) for name, fn in functions.items()},
        }
        self.alarms = [self._alarm(name, metric) for name, metric in alarms.items()]
        snapshots = self._emf(Metric.SNAPSHOTS).with_(
            period=Duration.seconds(SNAPSHOT_SILENCE.total_seconds())
        )
        self.alarms.append(
            self._alarm(
                "NoSnapshot",
                snapshots,
                threshold=1,
                below=True,
                missing=cloudwatch.TreatMissingData.BREACHING,
            )
        )
        self.dashboard = cloudwatch.Dashboard(self, "Dashboard", dashboard_name=None)
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="Decision runs",
                left=[state_machine.metric_succeeded(), state_machine.metric_failed()],
            ),
            cloudwatch.GraphWidget(
                title="Decisions",
                left=[
                    self._emf(Metric.DECISIONS),
                    self._emf(Metric.FALLBACKS),
                    self._emf(Metric.REJECTED_TRADES),
                ],
            ),
            cloudwatch.GraphWidget(
                title="Snapshots",
                left=[snapshots],
                right=[self._emf(Metric.SNAPSHOT_DURATION, "Maximum")],
            ),
            cloudwatch.GraphWidget(
                title="Function errors", left=[fn.metric_errors() for fn in functions.values()]
            ),
            cloudwatch.GraphWidget(
                title="Upstream retries", left=[self._emf(Metric.UPSTREAM_RETRIES)]
            ),
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms),
        )

    @staticmethod
    def _emf(name: Metric, statistic: str = "Sum") -> cloudwatch.Metric:
        """A metric the handlers emit (Powertools EMF, dimension ``service``)."""
        return cloudwatch.Metric(
            namespace=METRICS_NAMESPACE,
            metric_name=name.value,
            statistic=statistic,
            dimensions_map={"service": SERVICE_NAME},
        )

    def _alarm(
        self,
        name: str,
        metric: cloudwatch.IMetric,
        *,
        threshold: float = 1,
        below: bool = False,
        missing: cloudwatch.TreatMissingData = cloudwatch.TreatMissingData.NOT_BREACHING,
    ) -> cloudwatch.Alarm:
        operator = (
            cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD
            if below
            else cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD
        )
        alarm = cloudwatch.Alarm(
            self,
            name,
            metric=metric,
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=operator,
            treat_missing_data=missing,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        return alarm
