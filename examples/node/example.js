'use strict';
// Usage: [LEAF_ADMIN_TOKEN=...] node example.js [host:port]   (default localhost:50051)
// The token is needed for CreateTag when the server runs with --admin-token.
const { LeafClient, CachedIdGenerator, status } = require('@leaf-ids/client');

async function main() {
  const client = new LeafClient(process.argv[2] ?? 'localhost:50051',
    { token: process.env.LEAF_ADMIN_TOKEN || undefined });
  try {
    try {
      const tag = await client.createTag('node-example', { step: 1000, description: 'from Node' });
      console.log(`created tag ${tag.biz_tag} (step ${tag.step})`);
    } catch (err) {
      if (err.code !== status.ALREADY_EXISTS) throw err;
      console.log('tag node-example already exists');
    }
    for (let i = 0; i < 3; i++) {
      console.log(`NextId: ${await client.nextId('node-example')}`);
    }
    const ids = await client.nextIds('node-example', 25, 10);
    console.log(`NextIdBatch: ${ids.length} IDs, ${ids[0]} … ${ids[ids.length - 1]}`);

    // A cache of IDs reserved ahead: next() resolves without a call while a reservation lasts.
    const generator = await CachedIdGenerator.create(client, 'node-example');
    const cached = new Set();
    for (let i = 0; i < 1000; i++) cached.add(await generator.next());
    generator.close();
    console.log(`CachedIdGenerator: ${cached.size} unique IDs, ${generator.refills} reservations`);

    // Formatted numbers: a tag whose IDs are written as order numbers, counted per day.
    const format = { pattern: 'ORD-{yyyyMMdd}-{seq:6}{check:luhn}', reset: 'DAILY', timeZone: 'UTC' };
    try {
      await client.createTag('node-example-orders', { format });
    } catch (err) {
      if (err.code !== status.ALREADY_EXISTS) throw err;
    }
    const number = await client.nextFormattedId('node-example-orders');
    const parts = await client.parseFormattedId('node-example-orders', number);
    console.log(`NextFormattedId: ${number} (period ${parts.period}, sequence ${parts.sequence})`);
  } finally {
    client.close();
  }
}

main().catch((err) => {
  console.error(`leaf example failed: ${err.message}`);
  process.exitCode = 1;
});
