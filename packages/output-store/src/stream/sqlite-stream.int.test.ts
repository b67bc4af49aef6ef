import { join } from 'node:path';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import { runStreamContract } from '../testing/index.js';

runStreamContract(
  'SqliteOutputStore',
  (context) =>
    new SqliteOutputStore({ path: join(context.scratchDir, 'db', 'outputs.db'), now: context.now }),
);
