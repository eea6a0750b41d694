/**
 * The docs stay true to the tree and the code: no relative link, anchor or repository path in backticks
 * in any `.md` file names what is not there; the sections `npm run docs` writes (the room map, the config
 * reference, the CLI's help) are what it would write now; the failure-class table is the one list of
 * classes; and the README stays short enough for someone evaluating the project. The link checker and
 * the freshness check are each shown failing once, on a temporary tree.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureClasses, Outcome, WarningKind } from '../../../functions/base/common/verdict.ts';
import { readSection, ROOT, roomMap, ruleTable, SECTIONS, staleSections, writeSection } from '../../../scripts/docs.ts';
import { anchorOf, checkDocs, describeProblem, markdownFiles } from '../../helpers/docs.ts';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const scratch: string[] = [];
afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A tree of a few files, written under a temp dir. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-docs-'));
  scratch.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** The first column's code spans of the table under a heading, up to the next heading. */
function tableKeys(markdown: string, heading: string): string[] {
  const from = markdown.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`no ${heading}`);
  const to = markdown.indexOf('\n#', from + heading.length + 2);
  return [...markdown.slice(from, to < 0 ? undefined : to).matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

describe('the docs of this repository', () => {
  it('name no file, folder, link or anchor that is not there', () => {
    // Act
    const problems = checkDocs(ROOT).map(describeProblem);

    // Assess
    expect(problems).toEqual([]);
    expect(markdownFiles(ROOT)).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/README.md', 'docs/config.md']));
  });

  it('hold every generated section as npm run docs writes it', async () => {
    expect(await staleSections(read)).toEqual([]);
  });

  it('list exactly the failure classes, outcomes and warnings of functions/base/common/verdict.ts', () => {
    const verdicts = read('docs/verdicts.md');
    expect(tableKeys(verdicts, '## Failure classes').sort()).toEqual([...failureClasses].sort());
    expect(tableKeys(verdicts, '## Outcomes').sort()).toEqual(Object.values(Outcome).sort());
    expect(tableKeys(verdicts, '## Warnings and notices').sort()).toEqual(Object.values(WarningKind).sort());
  });

  it('keep the README short: at most 200 lines, for someone evaluating the project', () => {
    const lines = read('README.md').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(200);
    // The first screen is what it is and the demo, not contributor set-up.
    expect(lines.slice(0, 30).join('\n')).toContain('npm start');
    expect(lines.slice(0, 30).join('\n')).not.toMatch(/moto_server|cfn-lint|npm test/);
  });
});

describe('the link checker', () => {
  const files = {
    'docs/a.md': '# A\n\n## Deploy it\n\nSee [b](b.md#the-b), [deploy](#deploy-it), [the code](../functions/x.ts) and `functions/x.ts`.\n',
    'docs/b.md': '# The B\n',
    'functions/x.ts': 'export {};\n',
  };

  it('passes a tree whose links, anchors and paths all resolve', () => {
    expect(checkDocs(tree(files))).toEqual([]);
  });

  it('fails on a planted broken link and on a broken anchor, naming the doc and the line', () => {
    // Prepare
    const dir = tree({ ...files, 'docs/c.md': '# C\n\nA [typo](bb.md) and [an anchor](b.md#nowhere).\n' });

    // Act
    const problems = checkDocs(dir).map(describeProblem);

    // Assess
    expect(problems).toEqual([
      'docs/c.md:3: bb.md links to docs/bb.md, which does not exist',
      'docs/c.md:3: b.md#nowhere links to #nowhere, which is no heading of docs/b.md',
    ]);
  });

  it('fails when a file a doc names is renamed, for the link and the path in backticks alike', () => {
    // Prepare
    const dir = tree(files);
    renameSync(join(dir, 'functions/x.ts'), join(dir, 'functions/y.ts'));

    // Act
    const problems = checkDocs(dir).map(describeProblem);

    // Assess
    expect(problems).toEqual([
      'docs/a.md:5: ../functions/x.ts links to functions/x.ts, which does not exist',
      'docs/a.md:5: functions/x.ts names functions/x.ts, which does not exist',
    ]);
  });

  it('reads neither fenced code nor placeholders as references', () => {
    const dir = tree({
      'README.md': '# R\n\n```sh\ncat functions/gone.ts\n```\n\n`test/unit/<room>/`, `dist/cli/start.mjs`, `functions/*/x.ts`\n',
    });
    expect(checkDocs(dir)).toEqual([]);
  });

  it('makes anchors as GitHub does: markup and punctuation dropped, spaces as hyphens', () => {
    expect(anchorOf('`cdk deploy`, step by step')).toBe('cdk-deploy-step-by-step');
    expect(anchorOf("AWS's endpoints")).toBe('awss-endpoints');
    expect(anchorOf('Multi-round-trip results (2026-07-28, SEP-2322)')).toBe('multi-round-trip-results-2026-07-28-sep-2322');
    expect(anchorOf('Replay: who is told, and when')).toBe('replay-who-is-told-and-when');
  });
});

describe('the freshness check', () => {
  it('fails when the room map no longer matches LAYERS (a room added), and names the fix', async () => {
    // Prepare: the committed CONTRIBUTING.md, against a rule table with one more room.
    const table = await ruleTable();
    const grown = {
      ...table,
      layers: { ...table.layers, 'functions/engine/replay': { may: ['functions/base/common'], is: 'a room nobody documented' } },
    };
    const section = { file: 'CONTRIBUTING.md', name: 'room-map', render: async () => roomMap(grown) };

    // Act
    const stale = await staleSections(read, [section]);

    // Assess
    expect(stale).toEqual(['CONTRIBUTING.md: the room-map section is stale: run npm run docs']);
  });

  it('fails on a doc that lost its markers, and writes a section between them', async () => {
    expect(await staleSections(() => '# nothing here\n', [SECTIONS[0]!])).toEqual([
      'CONTRIBUTING.md has no <!-- room-map:start --> … <!-- room-map:end --> markers',
    ]);
    const written = writeSection('a\n<!-- x:start -->\nold\n<!-- x:end -->\nb\n', 'x', 'new');
    expect(written).toBe('a\n<!-- x:start -->\nnew\n<!-- x:end -->\nb\n');
    expect(readSection(written, 'x')).toBe('new');
  });

  it('refuses a room on no floor', async () => {
    const table = await ruleTable();
    expect(() => roomMap({ ...table, layers: { ...table.layers, 'tools/x': { may: [], is: 'lost' } } })).toThrow(
      'room(s) on no floor: tools/x: add the floor to FLOORS in eslint.config.js',
    );
  });
});
