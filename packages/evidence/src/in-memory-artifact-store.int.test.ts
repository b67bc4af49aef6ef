import { InMemoryArtifactStore } from './in-memory-artifact-store.js';
import { describeArtifactStoreContract } from './testing/artifact-store-contract.js';

describeArtifactStoreContract('InMemoryArtifactStore', async ({ allowedRoot, spoolDirectory }) => {
  const store = new InMemoryArtifactStore({
    allowedRoots: [allowedRoot],
    spoolDirectories: [spoolDirectory],
  });
  return { store, bytesRead: () => store.bytesRead };
});
