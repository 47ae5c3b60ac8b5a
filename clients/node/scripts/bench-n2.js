'use strict';
// Bench N2: CachedIdGenerator.next() against a plain JavaScript counter awaited in the same loop.
// Starts the packaged server (server/target/leaf-server.jar, or LEAF_SERVER_JAR), takes N IDs
// with `await gen.next()` and N values with `await counter()` (an async function returning the
// next BigInt of a local counter), alternating rounds, and prints the best time of each and the
// ratio counter time ÷ next() time (1 = as fast as the counter; the bar is 0.5).
// Usage: node scripts/bench-n2.js [N] (default 2,000,000).
const { LeafClient, CachedIdGenerator } = require('@leaf-ids/client');
const { startServer } = require('../test/support/packaged-server');

const N = Number(process.argv[2] ?? 2000000);
const ROUNDS = 5;

async function main() {
  const server = await startServer(['--admin-token', 'bench']);
  const client = new LeafClient(server.target, { token: 'bench' });
  try {
    await client.createTag('bench-n2', { step: 100000 });
    const gen = await CachedIdGenerator.create(client, 'bench-n2',
      { minBlockSize: 100000, maxBlockSize: 10000000 });
    let c = 0n;
    const counter = async () => c++;
    let sink = 0n;
    const time = async (take) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < N; i++) sink ^= await take();
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    let bestCounter = Infinity;
    let bestNext = Infinity;
    for (let round = 0; round < ROUNDS; round++) {
      bestCounter = Math.min(bestCounter, await time(counter));
      bestNext = Math.min(bestNext, await time(() => gen.next()));
    }
    const ratio = bestCounter / bestNext;
    console.log(`N2 ${N} calls, best of ${ROUNDS}: counter ${bestCounter.toFixed(1)} ms,`
      + ` next() ${bestNext.toFixed(1)} ms (${(N / bestNext / 1000).toFixed(2)} M IDs/s),`
      + ` waits ${gen.waits}, reservations ${gen.refills}`);
    console.log(`N2 ratio ${ratio.toFixed(2)} (bar 0.5)`);
    if (sink === -1n) console.log('(sink)'); // keeps the loops' results alive
    gen.close();
    if (ratio < 0.5) process.exitCode = 1;
  } finally {
    client.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(`bench N2 failed: ${err.stack}`);
  process.exitCode = 1;
});
