'use strict';
// `npm test`: packs the package (npm pack), installs the tarball into an empty temporary project
// and runs test/ there with node:test, so the tests see what a user installs (the files list,
// the exports map, the bundled proto) and not this directory. The server tests start
// server/target/leaf-server.jar (LEAF_SERVER_JAR overrides). `-- <args>` go to node --test.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const pkgDir = path.join(__dirname, '..');
const repo = path.join(pkgDir, '..', '..');
const jar = process.env.LEAF_SERVER_JAR ?? path.join(repo, 'server', 'target', 'leaf-server.jar');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-node-packed-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let status = 1;
try {
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', work],
    { cwd: pkgDir, encoding: 'utf8' }));
  const tarball = path.join(work, packed[0].filename);
  console.log(`packed ${packed[0].name}@${packed[0].version}: ${packed[0].entryCount} files`);
  const project = path.join(work, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'),
    JSON.stringify({ name: 'leaf-packed-test', version: '1.0.0', private: true }));
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    { cwd: project, stdio: 'inherit' });
  fs.cpSync(path.join(pkgDir, 'test'), path.join(project, 'test'), { recursive: true });
  const extra = process.argv.slice(2);
  const files = extra.length > 0 ? extra : fs.readdirSync(path.join(project, 'test'),
    { recursive: true }).filter((f) => /\.test\.m?js$/.test(f)).map((f) => path.join('test', f));
  execFileSync(process.execPath, ['--test', ...files],
    { cwd: project, stdio: 'inherit', env: { ...process.env, LEAF_SERVER_JAR: jar } });
  status = 0;
} catch (err) {
  if (err.status === undefined) console.error(err);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
process.exitCode = status;
