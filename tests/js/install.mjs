// Installs the tabletop-js package the way a user would, for the tests in
// this folder: builds it with scripts/build-js.sh (unless TABLETOP_JS_PKG
// names an already built package folder), then `npm pack`s it and
// `npm install`s the .tgz (or the folder itself) into a new temporary
// project, with no registry involved (the package has no dependencies).
// The tests import the package from there, by its name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The built package folder, building it first unless TABLETOP_JS_PKG is set. */
export function packageDir() {
  if (process.env.TABLETOP_JS_PKG) return path.resolve(process.env.TABLETOP_JS_PKG);
  execFileSync('bash', [path.join(ROOT, 'scripts', 'build-js.sh')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  return path.join(ROOT, 'target', 'tabletop-js');
}

const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

/**
 * A temporary project with tabletop-js installed from its packed .tgz
 * (`from: 'tgz'`) or from the folder (`from: 'folder'`, copied, as
 * `npm install ./target/tabletop-js --install-links` does). Returns the
 * project folder, shims that load the package by name as an ES module and
 * as CommonJS, and a `remove()`.
 */
export function installPackage({ from = 'tgz' } = {}) {
  const pkg = packageDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tabletop-js-test-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'uses-tabletop-js', private: true }));
  let spec = pkg;
  if (from === 'tgz') {
    const [packed] = JSON.parse(npm(['pack', pkg, '--json', '--pack-destination', dir], dir));
    spec = path.join(dir, packed.filename);
  }
  npm(['install', '--install-links', '--no-package-lock', spec], dir);
  writeFileSync(path.join(dir, 'esm.mjs'), "export * from 'tabletop-js';\nexport { default } from 'tabletop-js';\n");
  writeFileSync(path.join(dir, 'cjs.cjs'), "module.exports = require('tabletop-js');\n");
  return {
    dir,
    esm: path.join(dir, 'esm.mjs'),
    cjs: path.join(dir, 'cjs.cjs'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
