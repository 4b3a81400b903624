// The package's TypeScript declarations (index.d.ts, web/index.d.ts)
// checked by the TypeScript compiler the way a user's project meets them:
// tabletop-js installed from its packed .tgz into a temporary project, and
// tests/js/types/every-method.mts compiled there with `tsc --noEmit
// --strict` (and tests/js/types/require.cts, the CommonJS view). That file uses every method, gives the answers their
// documented types and holds `@ts-expect-error` lines, so declarations
// that are wrong or too loose fail it. A file with a type error must fail,
// which shows the compiler really reads the package's types.
//
// Run: node --test tests/js/types.test.mjs   (typescript comes from the
// repository's package.json, `npm ci`; TABLETOP_JS_PKG as in install.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT, installPackage } from './install.mjs';

const OPTIONS = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom',
  '--module', 'nodenext', '--moduleResolution', 'nodenext', '--pretty', 'false'];

/** The TypeScript compiler of the repository's devDependencies. */
function tscPath() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  let manifest;
  try {
    manifest = require.resolve('typescript/package.json');
  } catch {
    assert.fail('typescript is not installed: run `npm ci` at the repository root (it is a devDependency)');
  }
  return path.join(path.dirname(manifest), 'bin', 'tsc');
}

let installed;

before(() => {
  installed = installPackage({ from: 'tgz' });
});

after(() => installed?.remove());

/** Runs tsc on `file` (inside the temporary project); returns its output and status. */
function compile(file) {
  const run = spawnSync(process.execPath, [tscPath(), ...OPTIONS, file], { cwd: installed.dir, encoding: 'utf8' });
  assert.equal(run.error, undefined, String(run.error));
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the TypeScript declarations', () => {
  test('every method type-checks under tsc --strict, and the wrong uses stay errors', () => {
    copyFileSync(path.join(ROOT, 'tests', 'js', 'types', 'every-method.mts'), path.join(installed.dir, 'every-method.mts'));
    const { status, output } = compile('every-method.mts');
    assert.equal(output.trim(), '', 'tsc reports nothing');
    assert.equal(status, 0);
  });

  test('the CommonJS view (require) type-checks too', () => {
    copyFileSync(path.join(ROOT, 'tests', 'js', 'types', 'require.cts'), path.join(installed.dir, 'require.cts'));
    const { status, output } = compile('require.cts');
    assert.equal(output.trim(), '', 'tsc reports nothing');
    assert.equal(status, 0);
  });

  test('a type error in a user file fails the check', () => {
    writeFileSync(path.join(installed.dir, 'wrong.mts'), [
      "import { Tabletop } from 'tabletop-js';",
      'const db = new Tabletop();',
      "const printed: number = db.cbt('ls');",
      "db.readRows({ tableName: 't' }).rows[0]?.families?.[0]?.columns[0]?.cells[0]?.value?.byteLength;",
      'void printed;',
      '',
    ].join('\n'));
    const { status, output } = compile('wrong.mts');
    assert.notEqual(status, 0);
    assert.match(output, /wrong\.mts\(3,7\): error TS2322: Type 'string' is not assignable to type 'number'/);
    assert.match(output, /wrong\.mts\(4,\d+\): error TS2339: Property 'byteLength' does not exist on type 'string'/);
  });
});
