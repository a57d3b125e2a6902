"""What reaches the operator: one SNS topic (optional e-mail subscription) and what publishes
to it, each failure on the cheapest path that reports it reliably.

- A decision run that fails, times out or is aborted: an EventBridge rule on the state
  machine's execution status changes (AWS service events and rules are free).
- A run in which some agent ended without a decision (the Map's Catch keeps the run itself
  succeeding): Finalize publishes one message naming them (``services/run_alerts.py``).
- A scheduled function (open cohort, snapshot, resolve) that still fails after Lambda's two
  retries, or a schedule that could not invoke its target: the dead-letter queue (on-failure
  destinations and the schedules' DLQ), watched by the alarm ``DeadLetters`` on the messages
  *sent* to it in five minutes: each new failure alarms again, and the alarm returns to OK by
  itself (on the messages *visible* it stayed in ALARM for the queue's 14 days after the first,
  and later failures sent nothing). A snapshot pass that could refresh none of its markets, or
  a resolution pass none of its markets, fails on purpose (``MarketRefreshError``): a pass
  that marks nothing reaches this queue instead of valuing every position at its last price.
- No snapshot pass at all for 30 minutes (a schedule disabled or deleted, a function that
  cannot start): the alarm ``NoSnapshot`` on the snapshot function's free ``AWS/Lambda``
  Invocations metric, missing data treated as breaching (silence is the failure).
- No resolution pass for 3 hours (without resolutions no cohort would ever complete): the
  first snapshot pass of each hour reads when the last ran and publishes an alert itself
  (``services/run_alerts.py``; one read an hour, where an alarm would cost $0.10 a month).

Every alarm notifies on ALARM and on OK, and its description says what to do. Two alarms
($0.10 a month each), no custom metric (a metric filter's metric would be one): every figure
the handlers used to emit is in their JSON log lines. The dashboard is opt-in
(``-c arena:dashboard=true``, $3.00 a month): the free ``AWS/Lambda`` and ``AWS/States``
metrics, the alarms, and Logs Insights queries over the handlers' log lines for decisions,
fallbacks, rejected trades, retries and snapshot passes.

The topic is not encrypted: CloudWatch alarms cannot publish to a topic under the AWS managed
key ``alias/aws/sns`` (its policy cannot be edited to let ``cloudwatch.amazonaws.com`` use it), a
customer managed key would cost $1.00 a month (half the deployment's budget), and the messages
carry alarm names, run ids and agent ids, nothing secret. The topic's policy lets CloudWatch
(this account's alarms) and the failed-run rule (by its ARN, ``aws:SourceArn``) publish, over
TLS only. Without ``arena:alarmEmail`` the topic has no subscriber: synth warns, and the stack's
``AlarmSubscription`` output (and ``arena status``) say so.
"""

from __future__ import annotations

from typing import Any

import jsii
from aws_cdk import Annotations, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from arena_core.constants import SNAPSHOT_SILENCE

RUN_FAILED = ("FAILED", "TIMED_OUT", "ABORTED")
NO_SUBSCRIBER = (
    "No one receives the alerts: the alarm topic has no subscriber. Deploy with "
    "-c arena:alarmEmail=you@example.com (then confirm the e-mail AWS sends), or subscribe "
    "to AlarmTopicArn."
)
WHAT_TO_DO = {
    "DeadLetters": (
        "A scheduled function (open cohort, snapshot, resolve) failed after Lambda's two "
        "retries, or a schedule could not invoke it. Read the message (aws sqs receive-message "
        "--queue-url {queue}: its requestContext names the function and the "
        "condition), then that function's log group; a snapshot pass that refreshed no market "
        "says MarketRefreshError (Polymarket unreachable). Once understood, empty the queue "
        "(aws sqs purge-queue --queue-url {queue}). Alarms again on the next "
        "failure; OK after five minutes without one."
    ),
    "NoSnapshot": (
        "No snapshot pass ran for 30 minutes: positions are not marked and the site is not "
        "refreshed. Check the Snapshot schedule (EventBridge Scheduler, enabled?) and the "
        "Snapshot function (Lambda console: throttles, errors, its log group)."
    ),
}


@jsii.implements(events.IRuleTarget)
class TopicTarget:
    """A rule target publishing ``message`` to ``topic`` without CDK's policy statement (which
    lets every rule of EventBridge publish): the monitoring adds one scoped to the rule."""

    def __init__(self, topic: sns.ITopic, message: events.RuleTargetInput) -> None:
        self._topic, self._message = topic, message

    def bind(self, _rule: events.IRule, _id: Any = None) -> events.RuleTargetConfig:
        return events.RuleTargetConfig(arn=self._topic.topic_arn, input=self._message)


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
        dashboard: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        self._queue_url = dead_letters.queue_url
        self.topic = sns.Topic(self, "Alarms", enforce_ssl=True)
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowThisAccountsAlarms",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={"StringEquals": {"aws:SourceAccount": Stack.of(self).account}},
            )
        )
        if alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(alarm_email))
            self.subscription = (
                f"pending: confirm the e-mail AWS sent to {alarm_email} (arena status warns "
                "until a subscription is confirmed)"
            )
        else:
            Annotations.of(self).add_warning_v2("arena:noAlarmSubscriber", NO_SUBSCRIBER)
            self.subscription = f"NONE. {NO_SUBSCRIBER}"
        self.run_failed = self._run_failed_rule(state_machine)
        self.alarms = [
            self._alarm(
                "DeadLetters",
                dead_letters.metric_number_of_messages_sent(
                    period=Duration.minutes(5), statistic="Sum"
                ),
            ),
            self._alarm(
                "NoSnapshot",
                functions["Snapshot"].metric_invocations(
                    period=Duration.seconds(SNAPSHOT_SILENCE.total_seconds()), statistic="Sum"
                ),
                below=True,
                missing=cloudwatch.TreatMissingData.BREACHING,
            ),
        ]
        self.dashboard = (
            self._dashboard(functions, state_machine, dead_letters) if dashboard else None
        )

    def _run_failed_rule(self, state_machine: sfn.IStateMachine) -> events.Rule:
        """Failed, timed-out and aborted executions of the decision run, to the topic."""
        rule = events.Rule(
            self,
            "RunFailed",
            description="A decision run failed, timed out or was aborted",
            event_pattern=events.EventPattern(
                source=["aws.states"],
                detail_type=["Step Functions Execution Status Change"],
                detail={
                    "status": list(RUN_FAILED),
                    "stateMachineArn": [state_machine.state_machine_arn],
                },
            ),
        )
        field = events.EventField.from_path
        message = events.RuleTargetInput.from_text(
            f"Decision run {field('$.detail.name')} ended {field('$.detail.status')} at "
            f"{field('$.time')}: {field('$.detail.executionArn')}. Its history is in the Step "
            "Functions console; agents whose decisions succeeded are final, and a rerun of "
            "the week (arena rerun --week ...) takes the others again."
        )
        rule.add_target(TopicTarget(self.topic, message))  # type: ignore[arg-type]  # jsii
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowTheFailedRunRule",
                principals=[iam.ServicePrincipal("events.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={"ArnEquals": {"aws:SourceArn": rule.rule_arn}},
            )
        )
        return rule

    def _alarm(
        self,
        name: str,
        metric: cloudwatch.IMetric,
        *,
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
            threshold=1,
            evaluation_periods=1,
            comparison_operator=operator,
            treat_missing_data=missing,
            alarm_description=WHAT_TO_DO[name].format(queue=self._queue_url),
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        alarm.add_ok_action(actions.SnsAction(self.topic))  # the operator learns it is over
        return alarm

    def _dashboard(
        self,
        functions: dict[str, lambda_.Function],
        state_machine: sfn.StateMachine,
        dead_letters: sqs.IQueue,
    ) -> cloudwatch.Dashboard:
        """Free AWS metrics, the alarms, and the handlers' log lines queried with Logs Insights
        (no custom metric: what the handlers log is the source)."""
        board = cloudwatch.Dashboard(self, "Dashboard")
        decide, snapshot = functions["Decide"].log_group, functions["Snapshot"].log_group
        board.add_widgets(
            cloudwatch.GraphWidget(
                title="Decision runs",
                left=[
                    state_machine.metric_succeeded(),
                    state_machine.metric_failed(),
                    state_machine.metric_timed_out(),
                    state_machine.metric_aborted(),
                ],
            ),
            cloudwatch.LogQueryWidget(
                title="Decisions per week: fallbacks, rejected trades, upstream retries",
                log_group_names=[decide.log_group_name],
                query_lines=[
                    "filter message = 'decided'",
                    "stats count(*) as decisions, sum(result.fallback) as fallbacks, "
                    "sum(result.rejected) as rejected, sum(result.upstream_retries) as retries "
                    "by bin(1w)",
                ],
            ),
            cloudwatch.LogQueryWidget(
                title="Snapshot passes: seconds and stale positions",
                log_group_names=[snapshot.log_group_name],
                query_lines=[
                    "filter message = 'snapshot'",
                    "stats max(result.seconds) as seconds, max(result.stale_positions) as stale, "
                    "count(*) as passes by bin(1h)",
                ],
                view=cloudwatch.LogQueryVisualizationType.LINE,
            ),
            cloudwatch.GraphWidget(
                title="Function errors (before Lambda's retries)",
                left=[fn.metric_errors() for fn in functions.values()],
            ),
            cloudwatch.GraphWidget(
                title="Function duration (max)",
                left=[fn.metric_duration(statistic="Maximum") for fn in functions.values()],
            ),
            cloudwatch.GraphWidget(
                title="Dead letters",
                left=[dead_letters.metric_approximate_number_of_messages_visible()],
            ),
            cloudwatch.AlarmStatusWidget(title="Alarms", alarms=self.alarms),
        )
        return board
