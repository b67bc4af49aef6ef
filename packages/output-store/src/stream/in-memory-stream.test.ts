import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { runStreamContract } from '../testing/index.js';

runStreamContract('InMemoryOutputStore', (context) => new InMemoryOutputStore({ now: context.now }));
