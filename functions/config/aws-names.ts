/**
 * What AWS accepts as a region and as a CloudWatch namespace: the fleet schema checks the config with
 * these, the run's environment is checked with the same, so a value the one accepts the other does too.
 */

/** `eu-west-1`, `us-gov-west-1`, `us-isob-east-1`. */
export const REGION_PATTERN = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/;

/** CloudWatch's namespace characters and length. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9_./#:-]{1,255}$/;
