'use strict';
// Runs example.js, built on the @leaf-ids/client package (clients/node), against the packaged
// Leaf server (server/target/leaf-server.jar) on a free port with an H2 database of its own.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const path = require('node:path');
const { startServer } = require('../../../clients/node/test/support/packaged-server');

const ADMIN_TOKEN = 'node-example-admin-token';
let server;

before(async () => {
  server = await startServer(['--admin-token', ADMIN_TOKEN]);
});

after(async () => {
  if (server) await server.stop();
});

function runExample() {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, '..', 'example.js'), server.target],
      { timeout: 60000, env: { ...process.env, LEAF_ADMIN_TOKEN: ADMIN_TOKEN } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

test('example.js creates its tag and prints IDs, a batch, cached IDs and a formatted number', async () => {
  const out = await runExample();
  assert.match(out, /created tag node-example \(step 1000\)/);
  assert.match(out, /NextId: 1\n/);
  assert.match(out, /NextIdBatch: 25 IDs, 4 … 28/);
  assert.match(out, /CachedIdGenerator: 1000 unique IDs/);
  assert.match(out, /NextFormattedId: ORD-(\d{8})-\d{7} \(period \1, sequence \d+\)/);
});
