// @leaf-ids/client as an ES module: the same classes as the CommonJS entry point.
import leaf from './index.js';

export const {
  LeafClient, CachedIdGenerator, LeafIdError, connectionLost, status, credentials,
} = leaf;
export default leaf;
