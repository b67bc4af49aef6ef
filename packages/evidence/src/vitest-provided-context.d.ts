// What the repository's global setup (test/src/global-setup.ts) provides to this package's
// integration tests through vitest's `inject`. Type-only: never emitted into dist/.
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server (superuser, `postgres` database); each test file creates its own database. */
    postgresUrl: string;
  }
}
