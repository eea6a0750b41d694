/**
 * cdk-nag's AwsSolutions findings on the status stack that we mean, each with its reason. Everything
 * else the pack checks (public access blocked, SSL only, encryption, access logs on the page bucket (cdk-nag counts the log bucket as logged by being one), OAC,
 * least-privilege role) is met, not acknowledged.
 */
import { Validations } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { Role } from 'aws-cdk-lib/aws-iam';

export interface StatusFindings {
  readonly role: Role;
  readonly distribution: Distribution | undefined;
  readonly customDomain: boolean;
}

export function acknowledgeStatusFindings(f: StatusFindings): void {
  Validations.of(f.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'cloudwatch:GetMetricData authorizes on no resource narrower than "*" (the service has no resource types for it); it is read-only and the only action on "*".',
  });
  const d = f.distribution;
  if (!d) return;
  Validations.of(d).acknowledge({
    id: 'AwsSolutions-CFR1',
    reason: 'A public status page is for readers everywhere: no country is blocked.',
  });
  Validations.of(d).acknowledge({
    id: 'AwsSolutions-CFR2',
    reason:
      'Static objects from a private bucket, GET/HEAD only, cached at the edge: there is no origin compute for a WAF to protect, and a web ACL would cost more than the page.',
  });
  Validations.of(d).acknowledge({
    id: 'AwsSolutions-CFR3',
    reason:
      "The origin bucket's server access logs record every read CloudFront makes; CloudFront standard logs would need an ACL-enabled bucket, which this stack keeps out.",
  });
  if (!f.customDomain)
    Validations.of(d).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'Without a custom domain CloudFront serves its *.cloudfront.net certificate, whose policy it sets; with statusPage.domainName and certificateArn the distribution requires TLS 1.2 (TLSv1.2_2021).',
    });
}
