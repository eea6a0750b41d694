/**
 * A period as the stacks name it (`5m`, `1h`): names a schedule, its function and the `Inconclusive`
 * metric's `Rate` dimension, so it lives with the run-record contract. The period itself is the target's
 * rule's (functions/base/config/schema/target-rule.ts).
 */
export { rateSlug } from '../../functions/base/common/run-record.ts';
