import { InMemoryOutputStore } from './in-memory-output-store.js';
import { runOutputStoreContract } from './testing/index.js';

runOutputStoreContract(
  'InMemoryOutputStore',
  (context) =>
    new InMemoryOutputStore({
      now: context.now,
      allowedRoots: [context.allowedRoot],
      maxBodyBytes: context.maxBodyBytes,
    }),
);
