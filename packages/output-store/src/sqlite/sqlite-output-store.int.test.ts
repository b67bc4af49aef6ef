import { join } from 'node:path';
import { runOutputStoreContract } from '../testing/index.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

runOutputStoreContract(
  'SqliteOutputStore',
  (context) =>
    new SqliteOutputStore({
      path: join(context.scratchDir, 'db', 'outputs.db'),
      now: context.now,
      allowedRoots: [context.allowedRoot],
      maxBodyBytes: context.maxBodyBytes,
    }),
);
