'use strict';
// @leaf-ids/client: the Node.js client of the Leaf ID service (CommonJS entry point; index.mjs is
// the ES module one, index.d.ts the TypeScript declarations).
const {
  LeafClient, connectionLost, status, credentials,
} = require('./lib/leaf-client');
const { CachedIdGenerator, LeafIdError } = require('./lib/cached-id-generator');

module.exports = {
  LeafClient, CachedIdGenerator, LeafIdError, connectionLost, status, credentials,
};
