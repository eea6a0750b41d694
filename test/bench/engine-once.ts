/**
 * One verdict in a fresh process, the way a cron job (or a cold Lambda) pays for it: the bench bundles
 * this file with the Lambda's esbuild options and runs `node index.mjs '<target json>'`. Prints the
 * outcome; exit 0 when healthy.
 */
import { Target } from '../../functions/base/config/schema/target.ts';
import { judge } from '../../functions/engine/judge/judge.ts';

const verdict = await judge(Target.parse(JSON.parse(process.argv[2] ?? '{}')));
process.stdout.write(`${JSON.stringify({ outcome: verdict.outcome, detail: verdict.detail })}\n`);
process.exitCode = verdict.outcome === 'healthy' ? 0 : 1;
