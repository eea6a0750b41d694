/** A catalog that shrank to authentication tools (catalog/auth-shrink.ts): the category, not one name. */
import { describe, expect, it } from 'vitest';
import { readsLikeAuth, shrunkDetail, shrunkToAuth } from '../../../../functions/engine/catalog/auth-shrink.ts';
import { fingerprintCatalog } from '../../../../functions/engine/catalog/fingerprint.ts';

const tool = (name: string, description?: string) => ({ name, ...(description ? { description } : {}), inputSchema: { type: 'object' } });
const recorded = fingerprintCatalog(['get_rate', 'list_pairs', 'convert', 'ping', 'get_history'].map((n) => tool(n)));

describe('a tool that reads like authentication', () => {
  it.each([
    'authenticate',
    'login',
    'log_in',
    'sign-in',
    'signIn',
    'auth_status',
    'start_oauth_flow',
    'startOAuthFlow',
    'reauthenticate',
    'complete_authentication',
    'authorize',
    'set_api_key',
    'setApiKey',
    'refresh_token',
    'connect_account',
    'github_login',
    'sso',
  ])('%s by its name', (name) => expect(readsLikeAuth(tool(name))).toBe(true));

  it.each([
    ['begin', 'Authenticate with Acme to unlock the rate tools'],
    ['start', 'Log in to your Acme account'],
    ['setup', 'Use this tool to sign in again'],
    ['connect', 'Connect your Acme account before using other tools'],
    ['begin', 'Authentication required: open the link this returns'],
    ['step1', 'Your session has expired. Call this first.'],
  ])('%s by its description (%s)', (name, description) => expect(readsLikeAuth(tool(name, description))).toBe(true));

  it.each([
    ['get_author'],
    ['list_authors'],
    ['get_rate'],
    ['count_tokens'],
    ['get_token_price'],
    ['search_issues', 'Search issues (requires a project id)'],
    ['catalog'],
  ])('%s does not', (name, description?: string) => expect(readsLikeAuth(tool(name, description))).toBe(false));
});

describe('a catalog that shrank to authentication tools', () => {
  it.each([
    [['authenticate']],
    [['login', 'auth_status']],
    [['start_oauth_flow', 'ping']],
    [['authenticate', 'whoami', 'get_server_info']],
    [['reauthenticate', 'health_check']],
  ])('without a recorded catalog: %j → auth', (names) => {
    const s = shrunkToAuth(
      names.map((n) => tool(n)),
      null,
      'get_rate',
    );
    expect(s).not.toBeNull();
    expect(s!.recorded).toBeNull();
  });

  it('with a recorded catalog: the tools that stay were there before, and the way in appeared', () => {
    const s = shrunkToAuth([tool('ping'), tool('list_pairs'), tool('authenticate')], recorded, 'get_rate');
    expect(s).toEqual({ authTools: ['authenticate'], others: ['ping', 'list_pairs'], recorded: 5 });
    expect(shrunkDetail('get_rate', s!)).toMatch(
      /only authentication tools remain \(authenticate, beside ping, list_pairs\); the catalog shrank from 5 recorded tool\(s\) to 3/,
    );
  });

  it.each([
    ['the canary tool is still listed', [tool('get_rate'), tool('authenticate')], null],
    ['nothing reads like authentication', [tool('get_rates'), tool('ping')], null],
    ['an empty catalog', [], null],
    ['a renamed tool beside a login tool, no record', [tool('get_rates'), tool('login')], null],
    ['a new tool beside a login tool: not a shrink', [tool('get_rates_v2'), tool('login')], recorded],
    ['as many tools as recorded', ['list_pairs', 'convert', 'ping', 'get_history', 'login'].map((n) => tool(n)), recorded],
  ])('%s → not auth (tool_missing stands)', (_why, live, rec) => {
    expect(shrunkToAuth(live, rec, 'get_rate')).toBeNull();
  });

  it('a recorded catalog that never named the canary tool compares nothing: the name rule alone decides', () => {
    const other = fingerprintCatalog([tool('convert'), tool('list_pairs')]);
    expect(shrunkToAuth([tool('authenticate'), tool('convert')], other, 'get_rate')).toBeNull();
    expect(shrunkToAuth([tool('authenticate')], other, 'get_rate')).toMatchObject({ recorded: null });
  });

  it('a look-alike name is not the word it imitates', () => {
    const s = shrunkToAuth([tool('l\u043egin')], null, 'get_rate');
    expect(s).toBeNull(); // a Cyrillic о is not the word "login"
    const t = shrunkToAuth([tool('login'), tool('p\u0456ng')], null, 'get_rate');
    expect(t).toBeNull(); // nor is a look-alike housekeeping tool
    const u = shrunkToAuth([tool('login\u202e')], null, 'get_r\u0430te');
    expect(shrunkDetail('get_r\u0430te', u!)).toContain('no tool named "get_r\\u0430te": only authentication tools remain (login\\u202e)');
  });
});
