/** The `mcp-canary` the tests spawn: the bundle test/helpers/global-setup.ts builds once per run. */
import { inject } from 'vitest';
import './global-setup.ts';

export const CLI_BIN: string = inject('cliBin');
