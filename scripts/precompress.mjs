// Writes serve-ready compressed copies beside the files of a release build:
// NAME.gz (gzip, level 9) and NAME.br (Brotli, quality 11) for the .wasm,
// .js, .css, .html and .svg files, so a static host can send them as they
// are (see README.md, "Hosting the playground"). Trunk runs this as a
// post_build hook (Trunk.toml) with TRUNK_STAGING_DIR set to the build's
// folder; it does nothing for debug builds. It uses only Node's zlib: no
// network, no packages. A copy that would not be smaller is not written.
//
// Brotli at quality 11 takes about 20 s for the .wasm, so copies are kept
// in target/precompress-cache/ by the SHA-256 of what they compress: a
// rebuild of unchanged files reuses them (the cache keeps only the last
// build's copies).
//
// By hand: node scripts/precompress.mjs DIR
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const EXTENSIONS = new Set(['.wasm', '.js', '.css', '.html', '.svg']);

const COMPRESSORS = {
  '.gz': (body) => gzipSync(body, { level: 9 }),
  '.br': (body, ext) =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: ext === '.wasm' ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
      },
    }),
};

/**
 * Compresses every eligible file of `dir`, reusing and refreshing the
 * copies in `cache` (a folder, or null for none); returns what it wrote.
 */
export async function precompress(dir, cache = null) {
  const written = [];
  const used = new Set();
  if (cache) await mkdir(cache, { recursive: true });
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const ext = path.extname(entry.name);
    if (!entry.isFile() || !EXTENSIONS.has(ext)) continue;
    const file = path.join(dir, entry.name);
    const body = await readFile(file);
    const digest = createHash('sha256').update(body).digest('hex');
    for (const [suffix, compress] of Object.entries(COMPRESSORS)) {
      const key = `${digest}${suffix}`;
      used.add(key);
      let packed = cache ? await readFile(path.join(cache, key)).catch(() => null) : null;
      if (!packed) {
        packed = compress(body, ext);
        if (cache) await writeFile(path.join(cache, key), packed);
      }
      const target = file + suffix;
      if (packed.length < body.length) {
        await writeFile(target, packed);
        written.push({ file: entry.name + suffix, bytes: packed.length, of: body.length });
      } else {
        await rm(target, { force: true });
      }
    }
  }
  if (cache) {
    for (const name of await readdir(cache)) {
      if (!used.has(name)) await rm(path.join(cache, name), { force: true });
    }
  }
  return written;
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const byHand = process.argv[2];
  const dir = byHand ?? process.env.TRUNK_STAGING_DIR;
  if (!byHand && process.env.TRUNK_PROFILE !== 'release') process.exit(0);
  if (!dir) {
    console.error('usage: node scripts/precompress.mjs DIR (or as a trunk hook, with TRUNK_STAGING_DIR)');
    process.exit(2);
  }
  // As a hook, trunk runs it in the project's folder.
  const cache = byHand ? null : path.resolve('target', 'precompress-cache');
  try {
    for (const { file, bytes, of } of await precompress(dir, cache)) {
      console.log(`precompress: ${file} ${bytes} bytes (${Math.round((100 * bytes) / of)}% of ${of})`);
    }
  } catch (error) {
    console.error(`precompress: ${error.message}`);
    process.exit(1);
  }
}
