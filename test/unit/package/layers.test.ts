/**
 * The layers of issue 19, checked over the real import graph with the same table ESLint reads
 * (eslint.config.js's LAYERS): no import outside a room's row, type-only imports included, no file or
 * folder loop, every folder a room, sockets in functions/net/ only, and no comment that turns the rule
 * off. The checker and the lint blocks are each shown failing once on an import that breaks the rule.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { importGraph, importsOf, REPO, type ImportGraph } from '../../helpers/import-graph.ts';
import { checkLayers, describeViolation, layerDisables, ruleTable, type NetOnly, type RoomTable } from '../../helpers/layers.ts';

let layers: RoomTable;
let netOnly: NetOnly;
let graph: ImportGraph;

beforeAll(async () => {
  ({ layers, netOnly } = await ruleTable());
  graph = importGraph(['functions', 'infra']);
});

/** A graph of a few fixture files, their imports written as source. */
function fixture(files: Record<string, string>): ImportGraph {
  const all = Object.entries(files).flatMap(([file, text]) => importsOf(file, text));
  return {
    files: Object.keys(files),
    edges: all.filter((e) => e.specifier.startsWith('.')),
    packages: all.filter((e) => !e.specifier.startsWith('.')),
  };
}

describe('the source', () => {
  it('imports only what the rule table allows, with no loop between files or folders', () => {
    // Act
    const violations = checkLayers(graph, layers, netOnly).map(describeViolation);

    // Assess
    expect(violations).toEqual([]);
    expect(graph.edges.length).toBeGreaterThan(300);
  });

  it('never turns the layer rules off (eslint-disable of no-restricted-imports, or of every rule)', () => {
    expect(layerDisables(graph.files)).toEqual([]);
  });
});

describe('the checker', () => {
  it('reports an import a room may not make, type-only too, with the file and line', () => {
    // Prepare
    const g = fixture({
      'functions/net/wire.ts': "import { judge } from '../judge/judge.ts';\n",
      'functions/catalog/compare.ts': "import type { Session } from '../probe/session.ts';\n",
      'functions/judge/judge.ts': "import { Wire } from '../net/wire.ts';\n",
      'functions/probe/session.ts': '',
    });

    // Act
    const found = checkLayers(g, layers, netOnly).map(describeViolation);

    // Assess
    expect(found).toEqual([
      'functions/net/wire.ts:1 imports functions/judge/judge.ts: functions/net may not import functions/judge',
      'functions/catalog/compare.ts:1 imports functions/probe/session.ts (type only): functions/catalog may not import functions/probe',
      'files import each other around: functions/judge/judge.ts ⇄ functions/net/wire.ts',
      'folders import each other around: functions/judge ⇄ functions/net',
    ]);
  });

  it('reports a folder that is no room and a socket module outside net/', () => {
    const g = fixture({ 'functions/probe/steps/list.ts': '', 'functions/auth/expiry.ts': "import { connect } from 'node:tls';\n" });
    expect(checkLayers(g, layers, netOnly).map(describeViolation)).toEqual([
      'functions/probe/steps/list.ts is in no room: give its folder a row in LAYERS (eslint.config.js)',
      'functions/auth/expiry.ts:1 imports node:tls: sockets, TLS and fetch belong to functions/net/',
    ]);
  });

  it('reports a table that lets rooms import each other around', () => {
    const looped: RoomTable = { ...layers, 'functions/common': { ...layers['functions/common']!, may: ['functions/config'] } };
    expect(checkLayers({ files: [], edges: [], packages: [] }, looped, netOnly).map(describeViolation)).toEqual([
      'the rule table lets rooms import each other around: functions/common ⇄ functions/config',
    ]);
  });
});

describe('the lint blocks', () => {
  it('fail an import the table forbids and pass one it allows, as npm run lint does', async () => {
    // Prepare
    const eslint = new ESLint({ cwd: REPO });
    const lint = async (filePath: string, code: string) =>
      (await eslint.lintText(code, { filePath })).flatMap((r) =>
        r.messages.filter((m) => m.ruleId?.startsWith('no-restricted')).map((m) => m.message),
      );

    // Act + Assess
    expect(
      await lint('functions/catalog/fixture.ts', "import type { Exchange } from '../net/exchange.ts';\nexport type X = Exchange;\n"),
    ).toEqual([
      "'../net/exchange.ts' import is restricted from being used by a pattern. functions/catalog may import functions/common, functions/config; not functions/net (the rule table in eslint.config.js).",
    ]);
    expect(
      await lint('infra/plan/fixture.ts', "import { Wire } from '../../functions/net/wire.ts';\nexport const w = Wire;\n"),
    ).toHaveLength(1);
    expect(await lint('functions/posture/fixture.ts', "import { connect } from 'node:tls';\nexport const c = connect;\n")).toHaveLength(1);
    expect(await lint('functions/posture/fixture.ts', "export const f = () => fetch('https://example.com');\n")).toHaveLength(1);
    expect(await lint('functions/judge/fixture.ts', "import { Wire } from '../net/wire.ts';\nexport const w = Wire;\n")).toEqual([]);
  });
});

describe('disable comments', () => {
  it('are found when they turn the layer rules off, or every rule, and not otherwise', () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    writeFileSync(
      join(dir, 'a.ts'),
      [
        '// eslint-disable-next-line no-restricted-imports -- just this once',
        "import { judge } from '../judge/judge.ts';",
        '/* eslint-disable */',
        '// eslint-disable-next-line no-console -- allowed: not a layer rule',
      ].join('\n'),
    );

    // Act
    const found = layerDisables(['a.ts'], dir);
    rmSync(dir, { recursive: true, force: true });

    // Assess
    expect(found).toEqual(['a.ts:1: eslint-disable-next-line no-restricted-imports -- just this once', 'a.ts:3: eslint-disable']);
  });
});
