// The packed package as a user's project sees it: the ES module entry point, the CommonJS one,
// the TypeScript declarations, and nothing reachable past the exports map.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import * as esm from '@leaf-ids/client';

const require = createRequire(import.meta.url);

test('the ES module and CommonJS entry points export the same classes', () => {
  const cjs = require('@leaf-ids/client');
  for (const name of ['LeafClient', 'CachedIdGenerator', 'LeafIdError', 'connectionLost', 'status',
    'credentials']) {
    assert.ok(cjs[name] !== undefined, `CommonJS exports ${name}`);
    assert.equal(esm[name], cjs[name], `the ES module's ${name} is the CommonJS one`);
  }
  assert.equal(typeof esm.CachedIdGenerator.create, 'function');
});

test('index.d.ts declares every export and the package points at it', () => {
  const pkgJson = require.resolve('@leaf-ids/client/package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgJson, 'utf8'));
  assert.equal(pkg.exports['.'].types, './index.d.ts');
  const dts = fs.readFileSync(path.join(path.dirname(pkgJson), 'index.d.ts'), 'utf8');
  for (const decl of ['export class LeafClient', 'export class CachedIdGenerator',
    'export class LeafIdError', 'export const status', 'export const credentials',
    'export function connectionLost',
    'next(): Promise<bigint>']) {
    assert.ok(dts.includes(decl), `index.d.ts declares ${decl}`);
  }
});

test('the package carries its proto and hides its internals', () => {
  const root = path.dirname(require.resolve('@leaf-ids/client/package.json'));
  assert.ok(fs.existsSync(path.join(root, 'proto', 'leaf', 'v1', 'leaf.proto')), 'leaf.proto packed');
  assert.ok(!fs.existsSync(path.join(root, 'test')), 'tests not packed');
  assert.throws(() => require('@leaf-ids/client/lib/leaf-client'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
});
