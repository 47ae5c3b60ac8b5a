'use strict';
// The packaged Leaf server (server/target/leaf-server.jar) for the tests in test/: started on a free port
// with an H2 database in a temporary directory of its own, ready once it prints its "listening"
// line, stopped and removed by stop().
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

// The tests run from a copy in an empty project (scripts/test-packed.js), which names the jar.
const JAR = process.env.LEAF_SERVER_JAR
  ?? path.join(__dirname, '..', '..', '..', '..', 'server', 'target', 'leaf-server.jar');

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

/** Resolves once something accepts TCP connections on the port; rejects after timeoutMs. */
async function waitForPort(port, timeoutMs, log) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts the server with `args` (besides --port and --db-url, which it chooses); `files` are
 * written into its directory first (name → content, mode 0600), and their paths passed to
 * `args(paths)` when `args` is a function. Resolves to `{ target, dir, log(), stop() }` once it
 * listens.
 */
async function startServer(args = [], files = {}) {
  assert.ok(fs.existsSync(JAR), `${JAR} is missing: build it first with "make build"`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-node-'));
  const paths = {};
  for (const [name, content] of Object.entries(files)) {
    paths[name] = path.join(dir, name);
    fs.writeFileSync(paths[name], content, { mode: 0o600 });
  }
  const port = await freePort();
  let output = '';
  const proc = spawn('java', ['-jar', JAR, '--port', String(port),
    '--db-url', `jdbc:h2:file:${path.join(dir, 'leaf')};MODE=MySQL`,
    ...(typeof args === 'function' ? args(paths) : args)],
  { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  const log = () => output;
  const server = {
    target: `127.0.0.1:${port}`,
    port,
    dir,
    log,
    /** Stops the server (SIGTERM, SIGKILL after 15 s) and removes its directory. */
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        // A server that ignores SIGTERM for 15 s is killed, so the test run never hangs on it.
        const killer = setTimeout(() => proc.kill('SIGKILL'), 15000);
        await gone;
        clearTimeout(killer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const exited = new Promise((_, reject) => {
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  exited.catch(() => {});
  // The port opens before the start-up checks; the "listening" line is printed once they passed
  // and calls are served at once.
  const listening = new Promise((resolve) => {
    const check = () => { if (/Leaf listening on port/.test(output)) resolve(); };
    proc.stdout.on('data', check);
    proc.stderr.on('data', check);
  });
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no "Leaf listening" line after 90 s:\n${output}`)), 90000);
  });
  try {
    await Promise.race([waitForPort(port, 90000, log).then(() => listening), exited, timeout]);
    clearTimeout(timer);
  } catch (e) {
    clearTimeout(timer);
    await server.stop();
    throw e;
  }
  return server;
}

module.exports = { startServer, freePort };
