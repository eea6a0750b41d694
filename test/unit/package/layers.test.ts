/**
 * The layers of issue 19, checked over the real import graph with the same table ESLint reads
 * (eslint.config.js's LAYERS): no import outside a room's row, type-only imports included, no file or
 * folder loop, every folder a room, sockets in functions/base/net/ only, and no comment that turns the rule
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
      'functions/base/net/wire.ts': "import { judge } from '../../engine/judge/judge.ts';\n",
      'functions/engine/catalog/compare.ts': "import type { Session } from '../probe/session.ts';\n",
      'functions/engine/judge/judge.ts': "import { Wire } from '../../base/net/wire.ts';\n",
      'functions/engine/probe/session.ts': '',
    });

    // Act
    const found = checkLayers(g, layers, netOnly).map(describeViolation);

    // Assess
    expect(found).toEqual([
      'functions/base/net/wire.ts:1 imports functions/engine/judge/judge.ts: functions/base/net may not import functions/engine/judge',
      'functions/engine/catalog/compare.ts:1 imports functions/engine/probe/session.ts (type only): functions/engine/catalog may not import functions/engine/probe',
      'files import each other around: functions/base/net/wire.ts ⇄ functions/engine/judge/judge.ts',
      'folders import each other around: functions/base/net ⇄ functions/engine/judge',
    ]);
  });

  it('reports a folder that is no room and a socket module outside net/', () => {
    const g = fixture({
      'functions/engine/probe/steps/list.ts': '',
      'functions/engine/auth/expiry.ts': "import { connect } from 'node:tls';\n",
    });
    expect(checkLayers(g, layers, netOnly).map(describeViolation)).toEqual([
      'functions/engine/probe/steps/list.ts is in no room: give its folder a row in LAYERS (eslint.config.js)',
      'functions/engine/auth/expiry.ts:1 imports node:tls: sockets, TLS and fetch belong to functions/base/net/',
    ]);
  });

  it('reports a table that lets rooms import each other around', () => {
    const looped: RoomTable = {
      ...layers,
      'functions/base/common': { ...layers['functions/base/common']!, may: ['functions/base/config/words'] },
    };
    expect(checkLayers({ files: [], edges: [], packages: [] }, looped, netOnly).map(describeViolation)).toEqual([
      'the rule table lets rooms import each other around: functions/base/common ⇄ functions/base/config/words',
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
      await lint(
        'functions/engine/catalog/fixture.ts',
        "import type { Exchange } from '../../base/net/exchange.ts';\nexport type X = Exchange;\n",
      ),
    ).toEqual([
      "'../../base/net/exchange.ts' import is restricted from being used by a pattern. functions/engine/catalog may import functions/base/common, functions/base/config/schema; not functions/base/net (the rule table in eslint.config.js).",
    ]);
    expect(
      await lint('infra/plan/fixture.ts', "import { Wire } from '../../functions/base/net/wire.ts';\nexport const w = Wire;\n"),
    ).toHaveLength(1);
    expect(
      await lint('functions/engine/posture/fixture.ts', "import { connect } from 'node:tls';\nexport const c = connect;\n"),
    ).toHaveLength(1);
    expect(await lint('functions/engine/posture/fixture.ts', "export const f = () => fetch('https://example.com');\n")).toHaveLength(1);
    expect(
      await lint('functions/engine/judge/fixture.ts', "import { Wire } from '../../base/net/wire.ts';\nexport const w = Wire;\n"),
    ).toEqual([]);
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
