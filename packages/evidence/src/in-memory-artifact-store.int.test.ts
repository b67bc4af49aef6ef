import { InMemoryArtifactStore } from './in-memory-artifact-store.js';
import { describeArtifactStoreContract } from './testing/artifact-store-contract.js';

describeArtifactStoreContract('InMemoryArtifactStore', async () => {
  const store = new InMemoryArtifactStore();
  return { store, bytesRead: () => store.bytesRead };
});
