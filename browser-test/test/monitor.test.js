'use strict';
// Starts the packaged Leaf server (server/target/leaf-server.jar) with --http-port on an H2
// database in a temporary directory, opens the monitor page in Debian's Chromium (headless,
// driven by playwright-core, which never downloads a browser), creates tags (one with a format)
// and takes IDs over gRPC and HTTP, and checks that the page shows them as it refreshes. The
// screenshot is kept at target/monitor.png (repository root).
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { LeafClient } = require('../../clients/node');

const ROOT = path.join(__dirname, '..', '..');
const JAR = path.join(ROOT, 'server', 'target', 'leaf-server.jar');
const SCREENSHOT = path.join(ROOT, 'target', 'monitor.png');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ADMIN_TOKEN = 'browser-test-admin-token';

let server;
let serverLog = '';
let dataDir;
let profileDir;
let client;
let browser;
let page;
let httpBase;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForLog(text, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (!serverLog.includes(text)) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${serverLog}`);
    if (Date.now() > end) throw new Error(`no "${text}" after ${timeoutMs} ms:\n${serverLog}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The text of the row for `tag` in the table `table` (`tags`, `formatted`) once `predicate(text)`
 * holds (the page refreshes).
 */
async function rowOf(tag, predicate, timeoutMs = 20000, table = 'tags') {
  const end = Date.now() + timeoutMs;
  let last = null;
  for (;;) {
    last = await page.evaluate(([t, id]) => {
      for (const tr of document.querySelectorAll(`#${id} tr`)) {
        if (tr.cells[0] && tr.cells[0].textContent === t) return tr.innerText;
      }
      return null;
    }, [tag, table]);
    if (last !== null && predicate(last)) return last;
    if (Date.now() > end) {
      throw new Error(`row of ${tag} never matched; last: ${last}\n${await page.content()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

before(async () => {
  assert.ok(fs.existsSync(JAR), `${JAR} is missing: build it first with "make build"`);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-browser-'));
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-chromium-'));
  const grpcPort = await freePort();
  const httpPort = await freePort();
  server = spawn('java', ['-jar', JAR, '--port', String(grpcPort), '--http-port', String(httpPort),
    '--db-url', `jdbc:h2:file:${path.join(dataDir, 'leaf')};MODE=MySQL`,
    '--admin-token', ADMIN_TOKEN], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (d) => { serverLog += d; });
  server.stderr.on('data', (d) => { serverLog += d; });
  await waitForLog('Leaf listening', 90000);
  httpBase = `http://127.0.0.1:${httpPort}`;
  client = new LeafClient(`127.0.0.1:${grpcPort}`, { token: ADMIN_TOKEN });
  await client.waitForReady(10000);
  // A fresh profile directory each run (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    viewport: { width: 1200, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = browser.pages()[0] || await browser.newPage();
});

after(async () => {
  if (browser) await browser.close();
  if (client) client.close();
  if (server && server.exitCode === null) {
    const gone = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const killer = setTimeout(() => server.kill('SIGKILL'), 15000);
    await gone;
    clearTimeout(killer);
  }
  for (const dir of [dataDir, profileDir]) {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the monitor page shows created tags and the effect of NextId as it refreshes', async () => {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const response = await page.goto(`${httpBase}/`);
  assert.equal(response.status(), 200, 'GET /');
  assert.equal(await page.title(), 'Leaf monitor');
  assert.equal(await page.textContent('#db'), 'up', 'the database state is shown');
  assert.equal(await page.locator('#tags tr').count(), 0, 'no tag is held before any call');

  await client.createTag('orders', { step: 1000, description: 'browser test' });
  await client.createTag('payments', { step: 50 });
  for (let i = 0; i < 5; i++) await client.nextId('orders');
  await client.nextId('payments');

  // No reload: the page's own script brings the tags in.
  const orders = await rowOf('orders', (t) => t.includes('6 in [1, 1001)'));
  assert.match(orders, /1000/, 'the effective step');
  await rowOf('payments', (t) => t.includes('2 in [1, 51)'));

  for (let i = 0; i < 10; i++) await client.nextId('orders');
  await rowOf('orders', (t) => t.includes('16 in [1, 1001)'));

  // The Meituan-compatible endpoint moves the same cursor.
  const id = await (await fetch(`${httpBase}/api/segment/get/orders`)).text();
  assert.equal(id, '16', 'the HTTP endpoint answers the next ID alone');
  await rowOf('orders', (t) => t.includes('17 in [1, 1001)'));

  // A formatted tag: its numbers over HTTP, its pattern, period and numbers left on the page, and
  // its period row (an ordinary tag to the engine) marked as the row of that tag and period.
  await client.unary('CreateTag', { biz_tag: 'invoices',
    format: { pattern: 'INV-{yyyyMMdd}-{seq:6}', reset: 'DAILY', time_zone: 'UTC' } });
  const values = [];
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${httpBase}/api/formatted/get/invoices`);
    assert.equal(r.status, 200, 'a formatted number over HTTP');
    values.push(await r.text());
  }
  const day = values[0].slice(4, 12);
  assert.deepEqual(values, [1, 2, 3].map((n) => `INV-${day}-00000${n}`), 'the values alone');
  assert.equal((await fetch(`${httpBase}/api/formatted/get/payments`)).status, 409,
    'a tag without a format');
  const invoices = await rowOf('invoices', (t) => t.includes('999996'), 20000, 'formatted');
  assert.match(invoices, /INV-\{yyyyMMdd\}-\{seq:6\}/, 'the pattern');
  assert.ok(invoices.includes(day), `the current period: ${invoices}`);
  await rowOf(`invoices#${day}`, (t) => t.includes(`invoices, period ${day}`));

  const limits = await page.locator('#limits tr').allInnerTexts();
  assert.ok(limits.some((l) => l.startsWith('--max-waiting')), `limits shown: ${limits}`);
  assert.match(await page.textContent('#lease'), /lease/, 'the worker lease section');
  assert.match(await page.textContent('#age'), /updated/, 'the page refreshed itself');
  assert.deepEqual(errors, [], 'no script error on the page');

  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  assert.ok(fs.statSync(SCREENSHOT).size > 1000, 'a screenshot was written');
});
