/**
 * What CloudWatch accepts as a metric namespace: the fleet schema checks the config with this, and the
 * run's environment is checked with the same, so a value the one accepts the other does too.
 *
 * CloudWatch API reference, PutMetricData `Namespace` and `Metric`: 1–255 characters, not starting with
 * ":"; "You cannot specify a namespace that begins with "AWS/". Namespaces that begin with "AWS/" are
 * reserved for use by Amazon Web Services products." The canary also leaves out spaces, which CloudWatch
 * allows: the namespace is written into alarm names and dashboard queries, where a space needs quoting.
 */

const NAMESPACE_CHARACTERS = /^[A-Za-z0-9_./#:-]+$/;
export const NAMESPACE_MAX_LENGTH = 255;

/** Why `ns` is not a namespace the canary can publish to, or null. Phrased to follow a field name. */
export function namespaceProblem(ns: string): string | null {
  const got = JSON.stringify(ns.length > 60 ? `${ns.slice(0, 57)}…` : ns);
  if (ns.startsWith('AWS/'))
    return `is ${got}, in the AWS/ namespaces CloudWatch reserves for AWS's own services: PutMetricData refuses it, so no metric would be published and every alarm would stay silent. Use your own, e.g. "McpCanary" or "Acme/McpCanary"`;
  if (ns.length === 0 || ns.length > NAMESPACE_MAX_LENGTH)
    return `is ${ns.length} characters; a CloudWatch namespace is 1–${NAMESPACE_MAX_LENGTH}`;
  if (!NAMESPACE_CHARACTERS.test(ns))
    return `is ${got}: a CloudWatch namespace here is letters, digits and . _ / # : - (no spaces), e.g. "Acme/McpCanary"`;
  if (ns.startsWith(':')) return `is ${got}: a CloudWatch namespace cannot start with ":"`;
  return null;
}

/**
 * The fleet's name prefixes every stack (`<name>-home`, `<name>-probe-<region>-…`), alarm, topic,
 * function, table and log group. CloudFormation stack names are letters, digits and hyphens, starting
 * with a letter, at most 128 characters (CloudFormation User Guide, "Stack name"); 32 keeps the longest
 * derived names inside their services' limits too (Scheduler and Lambda names: 64).
 */
export const FLEET_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;
export const DEFAULT_FLEET_NAME = 'McpCanary';

/** Why `name` cannot name a fleet, or null. Phrased to follow a field name. */
export function fleetNameProblem(name: string): string | null {
  if (FLEET_NAME_PATTERN.test(name)) return null;
  const got = JSON.stringify(name.length > 40 ? `${name.slice(0, 37)}…` : name);
  return `is ${got}: a fleet name is 1–32 letters, digits or "-", starting with a letter (it prefixes every stack name, and CloudFormation stack names allow nothing else), e.g. "McpCanary" or "payments-canary"`;
}
