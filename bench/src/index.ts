export { type BenchRow, formatRate, formatTable, type Measurement, measure } from './harness.js';
