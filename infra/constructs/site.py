"""The public site: CloudFront with origin access control to the private site bucket, HTTPS
only, and security headers (a CSP the site is built for: no inline script or style). The
publication's bookkeeping shares the bucket but is refused to the distribution."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from arena_core.adapters.site_publishers import LEGACY_MANIFEST
from arena_core.constants import CONTENT_SECURITY_POLICY
from arena_core.ports.publisher import INTERNAL

__all__ = ["CONTENT_SECURITY_POLICY", "SiteDistribution"]


class SiteDistribution(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, bucket: s3.IBucket, logs: s3.IBucket
    ) -> None:
        super().__init__(scope, construct_id)
        headers = cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=CONTENT_SECURITY_POLICY, override=True
                ),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=Duration.days(365),
                    include_subdomains=True,
                    override=True,
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
                    override=True,
                ),
            ),
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                response_headers_policy=headers,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
            ),
            enable_logging=True,
            log_bucket=logs,
            log_file_prefix="cloudfront/",
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
        )
        self.url = f"https://{self.distribution.distribution_domain_name}"
        _refuse_bookkeeping(bucket)


def _refuse_bookkeeping(bucket: s3.IBucket) -> None:
    """The origin access control allows CloudFront every object; the publishers' manifest and
    marks (``INTERNAL``) are not for readers, so an explicit Deny wins over that Allow."""
    bucket.add_to_resource_policy(
        iam.PolicyStatement(
            sid="BookkeepingIsNotServed",
            effect=iam.Effect.DENY,
            principals=[iam.ServicePrincipal("cloudfront.amazonaws.com")],
            actions=["s3:GetObject"],
            resources=[
                bucket.arn_for_objects(f"{INTERNAL}*"),
                bucket.arn_for_objects(LEGACY_MANIFEST),
            ],
        )
    )
