'use strict';
// `npm pack`'s prepack step: copies the repository's proto/leaf into the package (the packed
// package loads it from there); with --remove (postpack) deletes the copy again.
const fs = require('node:fs');
const path = require('node:path');

const into = path.join(__dirname, '..', 'proto');
fs.rmSync(into, { recursive: true, force: true });
if (!process.argv.includes('--remove')) {
  const from = path.join(__dirname, '..', '..', '..', 'proto', 'leaf');
  fs.cpSync(from, path.join(into, 'leaf'), { recursive: true });
}
